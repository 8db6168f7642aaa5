// Tensor comparison for the conformance suite and CLI tests.
#include "tests/conformance/tensor_compare.h"

#include <cmath>

namespace ptq {

std::string CompareTensors(const Tensor& actual, const Tensor& expected, double rtol, double atol) {
  if (actual.dtype() != expected.dtype()) {
    return "type " + DataTypeName(actual.dtype()) + ", expected " + DataTypeName(expected.dtype());
  }
  if (actual.shape() != expected.shape()) {
    return "shape " + ShapeToString(actual.shape()) + ", expected " + ShapeToString(expected.shape());
  }
  const DataType t = expected.dtype();
  const bool is_float = t == DataType::kFloat || t == DataType::kDouble || t == DataType::kFloat16 || t == DataType::kBfloat16;
  int64_t bad = 0;
  std::string first;
  for (int64_t i = 0; i < expected.size(); ++i) {
    const double a = actual.GetAsDouble(i), e = expected.GetAsDouble(i);
    bool ok;
    if (!is_float) {
      ok = a == e;
    } else if (std::isnan(e) || std::isnan(a)) {
      ok = std::isnan(e) && std::isnan(a);
    } else if (std::isinf(e) || std::isinf(a)) {
      ok = a == e;
    } else {
      ok = std::fabs(a - e) <= atol + rtol * std::fabs(e);
    }
    if (!ok && bad++ == 0) {
      first = "element " + std::to_string(i) + ": " + std::to_string(a) + ", expected " + std::to_string(e);
    }
  }
  if (bad == 0) return "";
  return std::to_string(bad) + " of " + std::to_string(expected.size()) + " elements differ; first at " + first;
}

}  // namespace ptq
