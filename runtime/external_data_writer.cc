// ExternalDataWriter: aligned appends with a running SHA-256, references in TensorProtos, the hash-named commit.
#include "runtime/external_data_writer.h"

#include <onnx/onnx_pb.h>

#include <filesystem>

#include "runtime/mapped_file.h"
#include "runtime/tensor_proto.h"

namespace ptq {
namespace {

namespace fs = std::filesystem;

std::string FolderOf(const std::string& path) {
  const std::string d = fs::path(path).parent_path().string();
  return d.empty() ? "." : d;
}

void AddExternalEntry(onnx::TensorProto* p, const std::string& key, const std::string& value) {
  auto* e = p->add_external_data();
  e->set_key(key);
  e->set_value(value);
}

}  // namespace

ExternalDataWriter::ExternalDataWriter(const std::string& model_path)
    : folder_(FolderOf(model_path)),
      stem_(fs::path(model_path).stem().string()),
      file_((fs::path(folder_) / (stem_ + ".data")).string()) {}

std::string ExternalDataWriter::location() const { return fs::path(file_.path()).filename().string(); }

void ExternalDataWriter::Append(const void* data, size_t n) {
  file_.Write(data, n);
  hash_.Update(data, n);
}

void ExternalDataWriter::Put(const Tensor& t, const std::string& name, onnx::TensorProto* proto) {
  std::string packed;  // 4-bit types: raw_data's two values per byte
  if (t.dtype() == DataType::kInt4 || t.dtype() == DataType::kUint4) {
    TensorToProto(t, name, proto);
    packed.swap(*proto->mutable_raw_data());
  }
  const void* bytes = packed.empty() ? t.raw() : packed.data();
  const size_t n = packed.empty() ? t.nbytes() : packed.size();
  if (static_cast<int64_t>(n) < kMinBytes) {
    TensorToProto(t, name, proto);
    return;
  }
  const int64_t offset = (file_.size() + kAlignment - 1) / kAlignment * kAlignment;
  const std::string padding(static_cast<size_t>(offset - file_.size()), '\0');
  Append(padding.data(), padding.size());
  Append(bytes, n);
  end_ = offset + static_cast<int64_t>(n);
  // Zeros for the vector kernels' over-read, so that the tensor can be mapped while the file is written.
  const std::string overread(static_cast<size_t>(kTensorOverreadBytes), '\0');
  Append(overread.data(), overread.size());
  SetTensorProtoHeader(t, name, proto);
  proto->set_data_location(onnx::TensorProto::EXTERNAL);
  AddExternalEntry(proto, "location", location());
  AddExternalEntry(proto, "offset", std::to_string(offset));
  AddExternalEntry(proto, "length", std::to_string(n));
}

std::string ExternalDataWriter::CommitTo(AtomicFileSet* files) {
  const int64_t size = (file_.size() + kAlignment - 1) / kAlignment * kAlignment;
  const std::string padding(static_cast<size_t>(size - file_.size()), '\0');
  Append(padding.data(), padding.size());
  end_ = size;
  const std::string name = stem_ + "." + hash_.HexDigest().substr(0, 16) + ".data";
  file_.set_destination((fs::path(folder_) / name).string());
  files->Add(std::move(file_));
  return name;
}

}  // namespace ptq
