// Writing a model ptq made, crash-safe: its tensors inside the .onnx file, or in one external data file
// beside it when the model would not fit protobuf's 2 GiB limit or when asked.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>

#include "runtime/external_data_writer.h"
#include "runtime/file_util.h"
#include "runtime/model_io.h"

namespace ptq {

// The config's `output_external_data`: "auto" (external data when the model would reach 2 GiB),
// "always", or "never" (an error for a model over 2 GiB).
enum class ExternalDataMode { kAuto, kAlways, kNever };
ExternalDataMode ParseExternalDataMode(const std::string& text, const std::string& key);
const char* ExternalDataModeName(ExternalDataMode mode);

struct WrittenModel {
  int64_t model_bytes = 0;
  int64_t data_bytes = 0;   // 0 when every tensor is inside the model
  std::string data_file;    // the data file's name beside the model, "" when none
};

// The bytes of `model` with every tensor inline: the model, `data`'s tensors, and those it refers to in
// other files of data's folder.
int64_t ModelBytes(const onnx::ModelProto& model, const ExternalDataWriter& data);

// Adds the model `path` (and its data file first, so that a model is never renamed into place before its
// data) to `files`. `model`'s large tensors are external references into `data`'s temporary file
// (ExternalDataWriter::Put) or into other files of data's folder (the float model's, RewriteGraph), the
// others inline. With kAlways, or kAuto when ModelBytes reaches protobuf's 2 GiB limit, the tensors of
// other files are copied into the data file, which is added under its hash name, and the references
// renamed to it; otherwise every tensor is read into the model and the data file is dropped (kNever
// over the limit is a usage error). The written model refers to no other file. The model is serialized deterministically straight
// into its temporary file. `inline_limit` is the limit (tests lower it). REQUIRES: `path` is in data's
// folder; nothing is Put into `data` afterwards.
WrittenModel AddModelFiles(AtomicFileSet* files, onnx::ModelProto model, ExternalDataWriter* data,
                           const std::string& path, ExternalDataMode mode, int64_t inline_limit = kProtobufLimitBytes);

// Once the files are committed: removes the data files of earlier runs beside `path`
// ("<path's stem>.<16 hex digits>.data") other than `written.data_file`; no model refers to them any more.
void RemoveStaleDataFiles(const std::string& path, const WrittenModel& written);

}  // namespace ptq
