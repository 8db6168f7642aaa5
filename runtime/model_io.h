// Reading and writing .onnx files: size limits, clear parse errors, atomic writes.
#pragma once

#include <string>

namespace onnx {
class ModelProto;
}

namespace ptq {

// Parses a .onnx file. Throws an input error naming the file when it is missing, over 2 GiB (protobuf's
// limit: larger models must keep weights in external data), or not a valid ModelProto with a graph.
void LoadModelProto(const std::string& path, onnx::ModelProto* model);

// Serializes deterministically and writes atomically (see WriteFileAtomic). Refuses to write over
// `never_overwrite` when given (the input model's path).
void SaveModelProto(const onnx::ModelProto& model, const std::string& path, const std::string& never_overwrite = "");

}  // namespace ptq
