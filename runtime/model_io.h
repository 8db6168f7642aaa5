// Reading and writing .onnx files: size limits, clear parse errors, atomic writes.
#pragma once

#include <cstdint>
#include <string>

namespace google::protobuf {
class Descriptor;
}
namespace onnx {
class ModelProto;
}

namespace ptq {

class TemporaryFile;

// protobuf's limit on a serialized message: a model file with its tensors inline must stay below it.
inline constexpr int64_t kProtobufLimitBytes = (int64_t{2} << 30) - 1;

// Parses a .onnx file. Throws an input error naming the file when it is missing, over 2 GiB (protobuf's
// limit: larger models must keep weights in external data), would need more memory once parsed than
// MaxModelBytes() (estimated from the bytes before parsing), or is not a valid ModelProto with a graph.
void LoadModelProto(const std::string& path, onnx::ModelProto* model);

// The same from the file's bytes; `source` names them in errors.
void ParseModelProto(const std::string& bytes, const std::string& source, onnx::ModelProto* model);

// Heap bytes a serialized message of type `descriptor` would take once parsed, estimated from its wire
// bytes without allocating: every nested message, string and repeated element is counted with its
// in-memory cost (a 2-byte wire entry can cost 30 bytes parsed). -1 when the bytes are malformed
// (truncated, an invalid wire type, nesting over protobuf's recursion limit), which the parser refuses.
int64_t EstimateParsedBytes(const std::string& bytes, const google::protobuf::Descriptor* descriptor);

// A copy of `model` without the initializers of its main graph (nothing of them is copied).
onnx::ModelProto CopyWithoutInitializers(const onnx::ModelProto& model);

// A copy of `model` for shape inference, which needs the initializers' types and shapes and the values
// of small ones only (Reshape's shape, Slice's starts): initializers of more than `max_elements`
// elements, or stored externally, keep name, type and dims but no data. The weights are not copied.
onnx::ModelProto CopyForShapeInference(const onnx::ModelProto& model, int64_t max_elements = 64);

// The model's bytes, serialized deterministically (map order fixed): equal models give equal files.
// `where` names the destination in errors.
std::string SerializeModelProto(const onnx::ModelProto& model, const std::string& where);

// Serializes deterministically (as SerializeModelProto) straight into `file`, without the bytes in memory.
void SerializeModelTo(const onnx::ModelProto& model, TemporaryFile* file);

// Serializes deterministically and writes atomically (see WriteFileAtomic). Refuses to write over
// `never_overwrite` when given (the input model's path).
void SaveModelProto(const onnx::ModelProto& model, const std::string& path, const std::string& never_overwrite = "");

}  // namespace ptq
