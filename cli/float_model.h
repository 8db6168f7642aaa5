// The float model as the stages of a command read it, possibly many times: its proto without the bytes
// of its large tensors, which are external data (the model's own, or a scratch copy beside the output
// for weights stored inside the .onnx file), so that every stage maps them from the page cache instead
// of holding its own copy.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <memory>
#include <string>

#include "runtime/external_data_writer.h"

namespace ptq {

class FloatModel {
 public:
  // Inline tensors adding up to at least this many bytes are worth the scratch copy.
  static constexpr int64_t kScratchBytes = int64_t{16} << 20;

  // The model at `path`. With `scratch_beside` (a file path) given, the model is read now, and when it
  // has no external data of its own and at least `scratch_threshold` bytes in tensors of
  // ExternalDataWriter::kMinBytes or more inside it, those tensors are written to a scratch data file in
  // the folder of `scratch_beside` (created when missing), removed with this object or on an interrupt.
  // For a command that reads the model more than once; one that reads it once gives "".
  FloatModel(const std::string& path, const std::string& scratch_beside = "", int64_t scratch_threshold = kScratchBytes);

  const std::string& path() const { return path_; }  // the user's file: for messages and digests
  const std::string& dir() const { return dir_; }    // where the proto's external data resolves
  bool scratch() const { return scratch_ != nullptr; }
  // The model: a copy of the one with the scratch copy's references (small), else read from the file.
  onnx::ModelProto Proto() const;

 private:
  std::string path_, dir_;
  onnx::ModelProto proto_;
  std::shared_ptr<ExternalDataWriter> scratch_;
};

}  // namespace ptq
