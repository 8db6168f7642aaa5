// CheckModel: ONNX 1.12's top-level model checks around check_graph, with the model's folder set.
#include "runtime/model_checker.h"

#include <onnx/checker.h>

#include <unordered_map>
#include <unordered_set>

namespace ptq {

void CheckModel(const onnx::ModelProto& model, const std::string& model_dir) {
  namespace checker = onnx::checker;
  if (model.ir_version() == 0) fail_check("The model does not have an ir_version set properly.");
  if (model.ir_version() > onnx::IR_VERSION) fail_check("Your model ir_version is higher than the checker's.");
  std::unordered_set<std::string> keys;
  for (const auto& entry : model.metadata_props()) {
    if (!keys.insert(entry.key()).second) fail_check("Your model has duplicate keys in metadata_props.");
  }
  std::unordered_map<std::string, int> opsets;
  for (const auto& o : model.opset_import()) opsets[o.domain()] = static_cast<int>(o.version());
  if (model.ir_version() >= 3 && opsets.empty()) fail_check("model with IR version >= 3 must specify opset_import for ONNX");
  if (model.ir_version() < 3) {
    if (!opsets.empty()) fail_check("model with IR version < 3 cannot have opset_import specified");
    opsets[onnx::ONNX_DOMAIN] = 1;
  }
  checker::CheckerContext ctx;
  ctx.set_ir_version(static_cast<int>(model.ir_version()));
  ctx.set_opset_imports(opsets);
  ctx.set_model_dir(model_dir.empty() || model_dir.back() == '/' ? model_dir : model_dir + "/");
  checker::LexicalScopeContext lex;
  checker::check_graph(model.graph(), ctx, lex);
  if (model.ir_version() >= 8) checker::check_model_local_functions(model, ctx, lex);
}

}  // namespace ptq
