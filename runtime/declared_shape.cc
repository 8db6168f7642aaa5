// DeclaredShapeString: a graph input's or output's declared shape as messages show it.
#include "runtime/graph.h"

namespace ptq {

std::string DeclaredShapeString(const ValueInfo& v) {
  if (!v.has_shape) return "(no declared shape)";
  std::string s = "[";
  for (size_t i = 0; i < v.shape.size(); ++i) {
    const Dim& d = v.shape[i];
    s += (i ? ", " : "") + (d.value >= 0 ? std::to_string(d.value) : (d.param.empty() ? "?" : d.param));
  }
  return s + "]";
}

}  // namespace ptq
