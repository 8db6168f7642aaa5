// FloatModel: the model read once, inline weights spilled to a scratch data file that every stage maps.
#include "cli/float_model.h"

#include <filesystem>
#include <map>
#include <optional>
#include <vector>

#include "runtime/model_io.h"
#include "runtime/tensor_proto.h"

namespace ptq {
namespace {

std::string FolderOf(const std::string& path) {
  const std::string folder = std::filesystem::path(path).parent_path().string();
  return folder.empty() ? "." : folder;
}

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
    : path_(path), dir_(FolderOf(path)) {
  if (scratch_beside.empty()) return;
  onnx::ModelProto model;
  LoadModelProto(path, &model);
  const std::string scratch_dir = FolderOf(scratch_beside);
  std::error_code ec;
  const bool elsewhere = HasExternalData(model.graph()) && !std::filesystem::equivalent(dir_, scratch_dir, ec);
  const bool spill = InlineBytes(model.graph()) >= scratch_threshold;
  if (!elsewhere && !spill) return;
  if (elsewhere && !LinkExternalData(&model, scratch_beside)) return;  // the stages read the files where they are
  if (spill) {
    scratch_ = std::make_shared<ExternalDataWriter>(scratch_beside);
    for (auto& t : *model.mutable_graph()->mutable_initializer()) {
      if (t.raw_data().size() < static_cast<size_t>(ExternalDataWriter::kMinBytes)) continue;
      const std::string name = t.name();
      const Tensor value = TensorFromProto(t, dir_, path + ": initializer '" + name + "'");
      ReleaseTensorData(&t);
      scratch_->Put(value, name, &t);
    }
  }
  proto_ = std::move(model);
  dir_ = scratch_dir;
  scratch_ready_ = true;
}

bool FloatModel::LinkExternalData(onnx::ModelProto* model, const std::string& scratch_beside) {
  namespace fs = std::filesystem;
  std::vector<onnx::TensorProto*> tensors;
  for (auto& t : *model->mutable_graph()->mutable_initializer()) tensors.push_back(&t);
  for (auto& n : *model->mutable_graph()->mutable_node()) {
    for (auto& a : *n.mutable_attribute()) {
      if (a.has_g() || a.graphs_size() > 0) return false;  // subgraphs' tensors are not followed
      if (a.has_t()) tensors.push_back(a.mutable_t());
    }
  }
  std::map<std::string, std::string> linked;  // location -> the link's name beside the output
  for (onnx::TensorProto* t : tensors) {
    for (auto& e : *t->mutable_external_data()) {
      if (e.key() != "location") continue;
      auto it = linked.find(e.value());
      if (it == linked.end()) {
        // The same rule as reading it: a file inside the model's folder, or an input error now.
        const std::string target = ResolveExternalDataPath(dir_, e.value(), path_ + ": tensor '" + t->name() + "'");
        std::optional<TemporaryFile> link =
            TemporaryFile::Link(target, (fs::path(FolderOf(scratch_beside)) / fs::path(target).filename()).string());
        if (!link) {
          links_.clear();
          return false;
        }
        links_.push_back(std::move(*link));
        it = linked.emplace(e.value(), fs::path(links_.back().path()).filename().string()).first;
      }
      e.set_value(it->second);
    }
  }
  return true;
}

onnx::ModelProto FloatModel::Proto() const {
  if (scratch_ready_) return proto_;
  onnx::ModelProto model;
  LoadModelProto(path_, &model);
  return model;
}

}  // namespace ptq
