// .onnx file reading and atomic writing.
#include "runtime/model_io.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <onnx/onnx_pb.h>

#include <filesystem>

#include "runtime/error.h"
#include "runtime/file_util.h"

namespace ptq {

void LoadModelProto(const std::string& path, onnx::ModelProto* model) {
  constexpr int64_t kProtobufLimit = (int64_t{2} << 30) - 1;
  const std::string bytes = ReadFileToString(path, kProtobufLimit);
  google::protobuf::io::ArrayInputStream raw(bytes.data(), static_cast<int>(bytes.size()));
  google::protobuf::io::CodedInputStream coded(&raw);
  coded.SetTotalBytesLimit(static_cast<int>(kProtobufLimit));
  coded.SetRecursionLimit(100);
  if (!model->ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage()) {
    ThrowInputError(path, ": not a valid ONNX model (the protobuf could not be parsed; is the file truncated?)");
  }
  if (!model->has_graph()) ThrowInputError(path, ": the ONNX model has no graph (is the file truncated?)");
}

void SaveModelProto(const onnx::ModelProto& model, const std::string& path, const std::string& never_overwrite) {
  namespace fs = std::filesystem;
  if (!never_overwrite.empty()) {
    std::error_code ec;
    if (fs::exists(path, ec) && fs::equivalent(path, never_overwrite, ec)) {
      ThrowUsageError("refusing to overwrite the input model ", never_overwrite, " with the output ", path);
    }
  }
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream out(&bytes);
    google::protobuf::io::CodedOutputStream coded(&out);
    coded.SetSerializationDeterministic(true);
    if (!model.SerializeToCodedStream(&coded)) ThrowInputError(path, ": the model could not be serialized");
  }
  WriteFileAtomic(path, bytes);
}

}  // namespace ptq
