// The external data file of a model being written: tensors appended at page-aligned offsets to a
// temporary file beside the model (mapped back to run the model before it is written), named at the end
// for its content's SHA-256, so that a model never refers to a data file it was not written with.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/file_util.h"
#include "runtime/sha256.h"
#include "runtime/tensor.h"

namespace onnx {
class TensorProto;
}

namespace ptq {

class ExternalDataWriter {
 public:
  // Offsets of tensors in the file are multiples of this (the page size: a reader can map them).
  static constexpr int64_t kAlignment = 4096;
  // Tensors of fewer bytes stay inside the model (as onnx's own writer does).
  static constexpr int64_t kMinBytes = 1024;

  // The data file of the model to be written at `model_path`; its temporary file is created beside it.
  explicit ExternalDataWriter(const std::string& model_path);

  // Sets `proto` to `t` named `name`: inline raw_data when it has fewer than kMinBytes bytes, else its
  // bytes (raw_data's encoding) appended to the file, followed by 64 zero bytes (the vector kernels'
  // over-read: the tensor can be mapped at once), and `proto` an external reference to them
  // (location(), offset, length).
  void Put(const Tensor& t, const std::string& name, onnx::TensorProto* proto);

  // The folder external references resolve against (the model's), and the location they name while
  // the file is written: the temporary file's name.
  const std::string& folder() const { return folder_; }
  std::string location() const;
  // Bytes up to the end of the last tensor; after CommitTo, the file's size.
  int64_t bytes() const { return end_; }

  // Pads the file to a whole page, flushes it and adds it to
  // `files` as "<model stem>.<first 16 hex digits of its SHA-256>.data" beside the model, the name it
  // returns. Nothing can be Put afterwards.
  std::string CommitTo(AtomicFileSet* files);

 private:
  void Append(const void* data, size_t n);
  std::string folder_, stem_;
  TemporaryFile file_;
  Sha256 hash_;
  int64_t end_ = 0;
};

}  // namespace ptq
