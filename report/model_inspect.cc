// InspectModel: one walk over the ModelProto (subgraphs included), file sizes, and the MAC count.
#include "report/model_inspect.h"

#include <onnx/onnx_pb.h>

#include <cctype>
#include <cstdint>
#include <filesystem>
#include <set>

#include "runtime/dtype.h"
#include "runtime/error.h"
#include "runtime/file_util.h"
#include "runtime/model_io.h"
#include "runtime/tensor_proto.h"

namespace ptq {
namespace {

namespace fs = std::filesystem;

// Bits one element of ONNX type `code` is stored in; 0 for string and unknown types.
int ElementBits(int code) {
  switch (code) {
    case 1: case 6: case 12: return 32;         // float, int32, uint32
    case 2: case 3: case 9: return 8;           // uint8, int8, bool
    case 17: case 18: case 19: case 20: return 8;  // float8 variants
    case 4: case 5: case 10: case 16: return 16;   // uint16, int16, float16, bfloat16
    case 7: case 11: case 13: case 14: return 64;  // int64, double, uint64, complex64
    case 15: return 128;                        // complex128
    case 21: case 22: return 4;                 // uint4, int4
    default: return 0;
  }
}

std::string TypeName(int code) {
  const std::string n = DataTypeName(static_cast<DataType>(code));
  if (n.rfind("type(", 0) != 0) return n;
  std::string onnx_name = onnx::TensorProto_DataType_IsValid(code)
                              ? onnx::TensorProto_DataType_Name(static_cast<onnx::TensorProto_DataType>(code))
                              : "";
  for (char& c : onnx_name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return onnx_name.empty() ? n : onnx_name;
}

std::string OpKey(const onnx::NodeProto& n) {
  return n.domain().empty() || n.domain() == "ai.onnx" ? n.op_type() : n.domain() + ":" + n.op_type();
}

DeclaredValue Declared(const onnx::ValueInfoProto& v) {
  DeclaredValue d;
  d.name = v.name();
  const onnx::TypeProto& t = v.type();
  if (t.has_tensor_type() || t.has_sparse_tensor_type()) {
    const bool dense = t.has_tensor_type();
    d.type = (dense ? "" : "sparse ") + TypeName(dense ? t.tensor_type().elem_type() : t.sparse_tensor_type().elem_type());
    const bool has = dense ? t.tensor_type().has_shape() : t.sparse_tensor_type().has_shape();
    d.has_shape = has;
    if (has) {
      for (const auto& dim : (dense ? t.tensor_type().shape() : t.sparse_tensor_type().shape()).dim()) {
        d.dims.push_back(dim.has_dim_value() ? std::to_string(dim.dim_value()) : dim.has_dim_param() ? dim.dim_param() : "?");
      }
    }
  } else {
    d.type = t.has_sequence_type() ? "sequence" : t.has_map_type() ? "map" : t.has_optional_type() ? "optional" : "unknown";
  }
  return d;
}

// Collects weights, op counts and external data locations of `g` and its subgraphs.
class Walker {
 public:
  Walker(ModelInspection* m, const std::string& dir) : m_(m), dir_(dir) {}

  void Walk(const onnx::GraphProto& g) {
    for (const auto& t : g.initializer()) AddTensor(t);
    for (const auto& s : g.sparse_initializer()) AddTensor(s.values());
    for (const auto& n : g.node()) {
      ++m_->nodes;
      ++m_->op_counts[OpKey(n)];
      const bool constant = n.op_type() == "Constant" && (n.domain().empty() || n.domain() == "ai.onnx");
      for (const auto& a : n.attribute()) {
        if (a.has_g()) Walk(a.g());
        for (const auto& sub : a.graphs()) Walk(sub);
        if (!constant) continue;
        if (a.has_t()) AddTensor(a.t());
        if (a.has_sparse_tensor()) AddTensor(a.sparse_tensor().values());
        if (a.name() == "value_float") Add(1, 1, 4);
        if (a.name() == "value_floats") Add(1, a.floats_size(), 4 * int64_t{a.floats_size()});
        if (a.name() == "value_int") Add(7, 1, 8);
        if (a.name() == "value_ints") Add(7, a.ints_size(), 8 * int64_t{a.ints_size()});
        if (a.name() == "value_string") Add(8, 1, static_cast<int64_t>(a.s().size()));
        if (a.name() == "value_strings") {
          int64_t bytes = 0;
          for (const auto& s : a.strings()) bytes += static_cast<int64_t>(s.size());
          Add(8, a.strings_size(), bytes);
        }
      }
    }
  }

  const std::set<std::string>& external() const { return external_; }

 private:
  void AddTensor(const onnx::TensorProto& t) {
    int64_t n = 1;
    for (int64_t d : t.dims()) n = d < 0 || (d > 0 && n > INT64_MAX / d) ? 0 : n * d;
    int64_t bytes = 0;
    if (t.data_type() == onnx::TensorProto::STRING) {
      for (const auto& s : t.string_data()) bytes += static_cast<int64_t>(s.size());
    } else {
      const int bits = ElementBits(t.data_type());
      bytes = n > INT64_MAX / 8 ? INT64_MAX : (n * bits + 7) / 8;
    }
    Add(t.data_type(), n, bytes);
    if (t.data_location() != onnx::TensorProto::EXTERNAL) return;
    std::string location;
    for (const auto& kv : t.external_data()) {
      if (kv.key() == "location") location = kv.value();
    }
    external_.insert(ResolveExternalDataPath(dir_, location, m_->path + ": tensor '" + t.name() + "'"));
  }

  void Add(int code, int64_t elements, int64_t bytes) {
    WeightCount& w = m_->weights[TypeName(code)];
    ++w.tensors;
    w.elements += elements;
    w.bytes += bytes;
  }

  ModelInspection* m_;
  std::string dir_;
  std::set<std::string> external_;
};

std::string FolderOf(const std::string& path) {
  const std::string dir = fs::path(path).parent_path().string();
  return dir.empty() ? "." : dir;
}

}  // namespace

int64_t ModelBytesOnDisk(const onnx::ModelProto& model, const std::string& path) {
  ModelInspection scratch;
  scratch.path = path;
  Walker w(&scratch, FolderOf(path));
  w.Walk(model.graph());
  int64_t bytes = FileSize(path);
  for (const std::string& f : w.external()) bytes += FileSize(f);
  return bytes;
}

ModelInspection InspectModel(const std::string& path) {
  onnx::ModelProto model;
  LoadModelProto(path, &model);
  ModelInspection m;
  m.path = path;
  m.file_bytes = FileSize(path);
  Walker w(&m, FolderOf(path));
  w.Walk(model.graph());
  for (const std::string& f : w.external()) {
    m.external_files.push_back(f);
    m.external_bytes += FileSize(f);
  }
  m.ir_version = model.ir_version();
  m.model_version = model.model_version();
  m.producer_name = model.producer_name();
  m.producer_version = model.producer_version();
  m.domain = model.domain();
  for (const auto& o : model.opset_import()) m.opsets[o.domain().empty() ? "ai.onnx" : o.domain()] = o.version();
  for (const auto& p : model.metadata_props()) m.metadata[p.key()] = p.value();
  std::set<std::string> initializers;
  for (const auto& t : model.graph().initializer()) initializers.insert(t.name());
  for (const auto& v : model.graph().input()) {
    if (!initializers.count(v.name())) m.inputs.push_back(Declared(v));
  }
  for (const auto& v : model.graph().output()) m.outputs.push_back(Declared(v));
  m.macs = CountMacs(model, FolderOf(path));
  return m;
}

nlohmann::json InspectionJson(const ModelInspection& m) {
  using json = nlohmann::json;
  auto values = [](const std::vector<DeclaredValue>& vs) {
    json a = json::array();
    for (const DeclaredValue& v : vs) {
      json dims = json::array();
      for (const std::string& d : v.dims) {
        const bool number = !d.empty() && d.find_first_not_of("0123456789") == std::string::npos;
        dims.push_back(number ? json(std::stoll(d)) : json(d));
      }
      a.push_back({{"name", v.name}, {"type", v.type}, {"shape", v.has_shape ? dims : json(nullptr)}});
    }
    return a;
  };
  json weights = json::object();
  for (const auto& [type, w] : m.weights) weights[type] = {{"tensors", w.tensors}, {"elements", w.elements}, {"bytes", w.bytes}};
  json assumed = json::array();
  for (const AssumedDim& d : m.macs.assumed) {
    assumed.push_back({{"input", d.input}, {"dim", d.dim}, {"param", d.param}, {"value", d.value}});
  }
  const double share = m.macs.integer_share();
  json opsets = json::object();
  for (const auto& [domain, version] : m.opsets) opsets[domain] = version;
  return {{"path", m.path},
          {"file_bytes", m.file_bytes},
          {"external_files", m.external_files},
          {"external_bytes", m.external_bytes},
          {"total_bytes", m.file_bytes + m.external_bytes},
          {"ir_version", m.ir_version},
          {"model_version", m.model_version},
          {"producer_name", m.producer_name},
          {"producer_version", m.producer_version},
          {"domain", m.domain},
          {"opsets", opsets},
          {"metadata", m.metadata},
          {"inputs", values(m.inputs)},
          {"outputs", values(m.outputs)},
          {"nodes", m.nodes},
          {"op_counts", m.op_counts},
          {"weights", weights},
          {"macs",
           {{"total", m.macs.total},
            {"integer", m.macs.integer},
            {"integer_share", share < 0 ? json(nullptr) : json(share)},
            {"by_op", m.macs.by_op},
            {"assumed_dims", assumed},
            {"inputs_without_shape", m.macs.no_shape_inputs},
            {"unknown", m.macs.unknown},
            {"subgraph_nodes_not_counted", m.macs.subgraph_nodes}}}};
}

}  // namespace ptq
