// AddModelFiles: inline or external data by size and mode, the hash-named data file before the model,
// and the removal of data files no model refers to any more.
#include "runtime/model_writer.h"

#include <filesystem>
#include <regex>

#include "runtime/error.h"
#include "runtime/model_io.h"
#include "runtime/tensor_proto.h"

namespace ptq {
namespace {

namespace fs = std::filesystem;

// The value of an external data key of `t`, or "".
std::string ExternalValue(const onnx::TensorProto& t, const std::string& key) {
  for (const auto& e : t.external_data()) {
    if (e.key() == key) return e.value();
  }
  return "";
}

// Calls `f` on every initializer and tensor attribute of the main graph stored in external data.
template <class F>
void ForEachExternalTensor(onnx::ModelProto* model, F f) {
  auto visit = [&](onnx::TensorProto* t) {
    if (t->data_location() == onnx::TensorProto::EXTERNAL) f(t);
  };
  for (auto& t : *model->mutable_graph()->mutable_initializer()) visit(&t);
  for (auto& n : *model->mutable_graph()->mutable_node()) {
    for (auto& a : *n.mutable_attribute()) {
      if (a.has_t()) visit(a.mutable_t());
    }
  }
}

// The bytes of an external tensor's data (from its dims and type).
int64_t DataBytes(const onnx::TensorProto& t) {
  int64_t n = 1;
  for (int64_t d : t.dims()) n *= d;
  return SerializedBytes(static_cast<DataType>(t.data_type()), n, "tensor '" + t.name() + "'");
}

}  // namespace

ExternalDataMode ParseExternalDataMode(const std::string& text, const std::string& key) {
  if (text == "auto") return ExternalDataMode::kAuto;
  if (text == "always") return ExternalDataMode::kAlways;
  if (text == "never") return ExternalDataMode::kNever;
  ThrowUsageError("'", key, "' must be \"auto\", \"always\" or \"never\", got \"", text, "\"");
}

const char* ExternalDataModeName(ExternalDataMode mode) {
  switch (mode) {
    case ExternalDataMode::kAlways: return "always";
    case ExternalDataMode::kNever: return "never";
    default: return "auto";
  }
}

int64_t ModelBytes(const onnx::ModelProto& model, const ExternalDataWriter& data) {
  int64_t bytes = static_cast<int64_t>(model.ByteSizeLong()) + data.bytes();
  const auto count = [&](const onnx::TensorProto& t) {
    if (t.data_location() == onnx::TensorProto::EXTERNAL && ExternalValue(t, "location") != data.location()) {
      bytes += DataBytes(t);
    }
  };
  for (const auto& t : model.graph().initializer()) count(t);
  for (const auto& n : model.graph().node()) {
    for (const auto& a : n.attribute()) {
      if (a.has_t()) count(a.t());
    }
  }
  return bytes;
}

WrittenModel AddModelFiles(AtomicFileSet* files, onnx::ModelProto model, ExternalDataWriter* data,
                           const std::string& path, ExternalDataMode mode, int64_t inline_limit) {
  const std::string own = data->location();
  const int64_t inline_bytes = ModelBytes(model, *data);
  const bool external = mode == ExternalDataMode::kAlways || (mode == ExternalDataMode::kAuto && inline_bytes >= inline_limit);
  if (mode == ExternalDataMode::kNever && inline_bytes >= inline_limit) {
    ThrowUsageError(path, ": the model would take about ", inline_bytes, " bytes with its tensors inside it, over protobuf's 2 GiB ",
                    "limit; set 'output_external_data' to \"auto\" or \"always\"");
  }
  // Tensors in other files of the folder (the float model's, shared with it while the model was only
  // validated) are copied into the model's own data, or inline with the others.
  ForEachExternalTensor(&model, [&](onnx::TensorProto* t) {
    if (external && ExternalValue(*t, "location") == own) return;
    const std::string name = t->name();
    const Tensor value = TensorFromProto(*t, data->folder(), path + ": tensor '" + name + "'", nullptr, ExternalRead::kMap);
    if (external) {
      data->Put(value, name, t);
    } else {
      TensorToProto(value, name, t);
    }
  });
  WrittenModel w;
  if (external) {
    w.data_file = data->CommitTo(files);
    w.data_bytes = data->bytes();
    ForEachExternalTensor(&model, [&](onnx::TensorProto* t) {
      for (auto& e : *t->mutable_external_data()) {
        if (e.key() == "location") e.set_value(w.data_file);
      }
    });
  }
  TemporaryFile file(path);
  SerializeModelTo(model, &file);
  w.model_bytes = file.size();
  files->Add(std::move(file));
  return w;
}

void RemoveStaleDataFiles(const std::string& path, const WrittenModel& written) {
  const fs::path p(path);
  const fs::path folder = p.has_parent_path() ? p.parent_path() : fs::path(".");
  std::string stem = p.stem().string();
  // The stem as a literal inside the pattern.
  std::string quoted;
  for (char c : stem) {
    if (std::string("\\^$.|?*+()[]{}").find(c) != std::string::npos) quoted += '\\';
    quoted += c;
  }
  const std::regex pattern(quoted + "\\.[0-9a-f]{16}\\.data");
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(folder, ec)) {
    const std::string name = e.path().filename().string();
    if (name != written.data_file && std::regex_match(name, pattern) && e.is_regular_file(ec)) fs::remove(e.path(), ec);
  }
}

}  // namespace ptq
