// The float model as the stages of a command read it, possibly many times: its proto without the bytes
// of its large tensors, which are external data in the output's folder (a scratch copy of weights stored
// inside the .onnx file, hard links to its own data files), so that every stage maps them from the page
// cache instead of holding its own copy, and a model made from it refers to them without copying them.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/external_data_writer.h"
#include "runtime/file_util.h"

namespace ptq {

class FloatModel {
 public:
  // Inline tensors adding up to at least this many bytes are worth the scratch copy.
  static constexpr int64_t kScratchBytes = int64_t{16} << 20;

  // The model at `path`. With `scratch_beside` (a file path) given, the model is read now and made to
  // keep all its large tensors in files of the folder of `scratch_beside` (created when missing), where
  // the output's data file is written, so that a model made from it can refer to them there:
  // - its tensors of ExternalDataWriter::kMinBytes and more inside the .onnx file, when they add up to
  //   `scratch_threshold` bytes or more, are written to a scratch data file;
  // - its external data files, when in another folder, get hard links there (no copy; when the system
  //   refuses them, e.g. another file system, the model is read where it is).
  // Both are temporary files, removed with this object or on an interrupt. For a command that reads the
  // model more than once; one that reads it once gives "".
  FloatModel(const std::string& path, const std::string& scratch_beside = "", int64_t scratch_threshold = kScratchBytes);

  const std::string& path() const { return path_; }  // the user's file: for messages and digests
  const std::string& dir() const { return dir_; }    // where the proto's external data resolves
  bool scratch() const { return scratch_ready_; }
  // The model: a copy of the one referring to the scratch files (small), else read from the file.
  onnx::ModelProto Proto() const;

 private:
  // Links every external data file of `model` beside `scratch_beside` and renames its locations; false
  // (and no link) when the system refuses a link.
  bool LinkExternalData(onnx::ModelProto* model, const std::string& scratch_beside);

  std::string path_, dir_;
  onnx::ModelProto proto_;
  bool scratch_ready_ = false;  // proto_ refers to files beside the output
  std::shared_ptr<ExternalDataWriter> scratch_;
  std::vector<TemporaryFile> links_;
};

}  // namespace ptq
