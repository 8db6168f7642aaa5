// ptq inspect: what a model holds (ops, weights, size, opsets, inputs and outputs, integer MAC share).
#include <iostream>

#include "cli/args.h"
#include "cli/commands.h"
#include "report/model_inspect.h"
#include "runtime/error.h"

namespace ptq {

namespace {
constexpr const char* kInspectUsage = R"(usage: ptq inspect MODEL [--json]

Prints what MODEL holds: its size on disk (with its external data files), ir_version, opsets and
producer, inputs and outputs (symbolic dims by name), node counts by op type, weights (initializers and
Constant nodes) by element type with element counts and bytes, metadata_props (where ptq writes its
provenance), and the share of the MatMul/Gemm/Conv multiply-accumulates done on integers: QLinearMatMul,
MatMulInteger, QLinearConv, ConvInteger, ONNX Runtime's MatMulIntegerToFloat / QGemm, and MatMul/Gemm/
Conv in QDQ form (both inputs from DequantizeLinear), against all of them. MACs come from ONNX shape
inference; input dims that are not fixed numbers are taken as 1, and the output says which.
--json  print the same as one JSON object
)";
}  // namespace

int InspectCommand(int argc, char** argv) {
  Args args(argc, argv, 2, {}, {"help", "json"});
  if (args.Has("help")) {
    std::cout << kInspectUsage;
    return 0;
  }
  if (args.positional().size() != 1) ThrowUsageError("ptq inspect takes one MODEL argument (see ptq inspect --help)");
  const ModelInspection m = InspectModel(args.positional()[0]);
  if (args.Has("json")) {
    std::cout << InspectionJson(m).dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    std::cout << RenderInspection(m);
  }
  return 0;
}

}  // namespace ptq
