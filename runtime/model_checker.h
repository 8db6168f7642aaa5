// ONNX's checker for a model in memory whose external data lives in a given folder.
#pragma once

#include <string>

namespace onnx {
class ModelProto;
}

namespace ptq {

// onnx::checker's model checks (IR version, unique metadata keys, opset imports, the graph, local
// functions) with external data locations resolved against `model_dir`, as check_model(path) does for a
// file. (ONNX 1.12's check_model(ModelProto) resolves them against the working folder, and its
// check_model(path) reads the whole file again.) Throws onnx::checker::ValidationError.
void CheckModel(const onnx::ModelProto& model, const std::string& model_dir);

}  // namespace ptq
