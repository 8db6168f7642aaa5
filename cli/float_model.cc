// FloatModel: the model read once, inline weights spilled to a scratch data file that every stage maps.
#include "cli/float_model.h"

#include <filesystem>

#include "runtime/model_io.h"
#include "runtime/tensor_proto.h"

namespace ptq {
namespace {

bool HasExternalData(const onnx::GraphProto& g) {
  for (const auto& t : g.initializer()) {
    if (t.data_location() == onnx::TensorProto::EXTERNAL) return true;
  }
  for (const auto& n : g.node()) {
    for (const auto& a : n.attribute()) {
      if (a.has_t() && a.t().data_location() == onnx::TensorProto::EXTERNAL) return true;
      if (a.has_g() && HasExternalData(a.g())) return true;
    }
  }
  return false;
}

// Bytes of the initializers that ExternalDataWriter::Put would write to its file.
int64_t InlineBytes(const onnx::GraphProto& g) {
  int64_t bytes = 0;
  for (const auto& t : g.initializer()) {
    const auto n = static_cast<int64_t>(t.raw_data().size());
    if (n >= ExternalDataWriter::kMinBytes) bytes += n;
  }
  return bytes;
}

}  // namespace

FloatModel::FloatModel(const std::string& path, const std::string& scratch_beside, int64_t scratch_threshold)
    : path_(path) {
  const std::string folder = std::filesystem::path(path).parent_path().string();
  dir_ = folder.empty() ? "." : folder;
  if (scratch_beside.empty()) return;
  onnx::ModelProto model;
  LoadModelProto(path, &model);
  if (HasExternalData(model.graph()) || InlineBytes(model.graph()) < scratch_threshold) return;
  scratch_ = std::make_shared<ExternalDataWriter>(scratch_beside);
  for (auto& t : *model.mutable_graph()->mutable_initializer()) {
    if (t.raw_data().size() < static_cast<size_t>(ExternalDataWriter::kMinBytes)) continue;
    const std::string name = t.name();
    const Tensor value = TensorFromProto(t, dir_, path + ": initializer '" + name + "'");
    ReleaseTensorData(&t);
    scratch_->Put(value, name, &t);
  }
  proto_ = std::move(model);
  dir_ = scratch_->folder();
}

onnx::ModelProto FloatModel::Proto() const {
  if (scratch_) return proto_;
  onnx::ModelProto model;
  LoadModelProto(path_, &model);
  return model;
}

}  // namespace ptq
