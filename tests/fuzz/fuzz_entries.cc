// The fuzz entry points: model loading, .npy/.npz, TensorProto files, configs, calibration tables, rewrite.
#include "tests/fuzz/fuzz_entries.h"

#include <onnx/onnx_pb.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>

#include "calibrate/calibration_config.h"
#include "calibrate/calibration_table.h"
#include "calibrate/npz_reader.h"
#include "calibrate/range_method.h"
#include "calibrate/sample_reader.h"
#include "cli/config_file.h"
#include "cli/effective_config.h"
#include "report/validation_config.h"
#include "runtime/quant_table.h"
#include "runtime/quantization_options.h"
#include "rewrite/rewriter.h"
#include "runtime/error.h"
#include "runtime/graph.h"
#include "runtime/json_fields.h"
#include "runtime/model_io.h"
#include "runtime/npy.h"
#include "runtime/session.h"
#include "runtime/tensor_proto.h"

namespace ptq::fuzz {
namespace {

namespace fs = std::filesystem;

// PTQ_FUZZ_VERBOSE=1 prints each refusal (to see how far seeds get).
const bool kVerbose = std::getenv("PTQ_FUZZ_VERBOSE") != nullptr;

void Refused(const Error& e) {
  if (kVerbose) std::fprintf(stderr, "refused: %s\n", e.what());
}

// Runs one stage: a ptq::Error is a proper refusal; anything else propagates.
template <class F>
void Guard(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    Refused(e);
  }
}

void WriteFile(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("fuzz workspace: cannot write " + path.string());
}

// The private temporary folder: model/ (external data fixtures), data/ (files written per input).
struct Workspace {
  fs::path root, model, data;
  Workspace() {
    const char* shm = "/dev/shm";
    const fs::path parent = ::access(shm, W_OK) == 0 ? fs::path(shm) : fs::temp_directory_path();
    RemoveStale(parent);
    std::string tmpl = (parent / ("ptq_fuzz_" + std::to_string(::getpid()) + "_XXXXXX")).string();
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("fuzz workspace: mkdtemp failed");
    root = tmpl;
    model = root / "model";
    data = root / "data";
    fs::create_directories(model / "sub");
    fs::create_directories(data);
    std::string weights(4096, '\0');
    for (size_t i = 0; i < weights.size(); ++i) weights[i] = static_cast<char>((i * 37 + 11) & 0xff);
    WriteFile(model / "weights.bin", weights);
    WriteFile(model / "sub" / "nested.bin", weights.substr(0, 256));
    WriteFile(root / "outside.bin", weights.substr(0, 1024));
    fs::create_symlink("weights.bin", model / "link_in.bin");
    fs::create_symlink("../outside.bin", model / "link_out.bin");
    fs::create_directory_symlink("..", model / "up");
  }
  ~Workspace() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  // A crash ends the process without destructors: folders of processes that no longer exist go here.
  static void RemoveStale(const fs::path& parent) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(parent, ec)) {
      const std::string n = e.path().filename().string();
      if (n.rfind("ptq_fuzz_", 0) != 0) continue;
      const long pid = std::strtol(n.c_str() + 9, nullptr, 10);
      if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) fs::remove_all(e.path(), ec);
    }
  }
};

Workspace& Ws() {
  static Workspace ws;  // destroyed at exit
  return ws;
}

// A graph whose inputs are `names`, of any type and shape (what the sample reader checks against).
Graph InputsGraph(const std::vector<std::string>& names) {
  Graph g;
  g.source = "fuzz.onnx";
  for (const std::string& n : names) {
    ValueInfo v;
    v.name = n;
    g.inputs.push_back(v);
  }
  return g;
}

// Reads every batch of `data_path` as calibration would, with and without batching and sharding.
void ReadSamples(const Graph& graph, const std::string& data_path) {
  const int64_t kRuns[2][3] = {{1, 0, 1}, {3, 1, 2}};  // batch size, shard index, shard count
  for (const auto& run : kRuns) {
    Guard([&] {
      SampleOptions o;
      o.batch_size = run[0];
      o.shard_index = run[1];
      o.shard_count = run[2];
      o.max_samples = 64;
      SampleReader r = SampleReader::Open(graph, data_path, o);
      std::map<std::string, Tensor> b;
      int64_t n = 0;
      while (r.Next(&b, &n)) {
      }
      (void)r.warnings();
    });
  }
}

bool SameTensor(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() && std::memcmp(a.raw(), b.raw(), a.nbytes()) == 0;
}

void ModelLoad(const std::string& bytes) {
  Guard([&] {
    onnx::ModelProto model;
    ParseModelProto(bytes, "fuzz.onnx", &model);
    auto graph = std::make_shared<const Graph>(GraphFromModel(model, ModelFolder(), "fuzz.onnx"));
    Session session(graph);
  });
}

void Npy(const std::string& bytes) {
  Guard([&] {
    const Tensor t = ParseNpy(bytes, "fuzz.npy");
    // What is read is written back identically (EncodeNpy's header is canonical; the data is not).
    if (!SameTensor(ParseNpy(EncodeNpy(t), "fuzz.npy (re-encoded)"), t)) std::abort();
  });
  Guard([&] {
    const std::string first = bytes.substr(0, 12);
    if (NpyHeaderSize(first, "fuzz.npy") <= static_cast<int64_t>(bytes.size())) ParseNpyHeader(bytes, "fuzz.npy");
  });
  const fs::path dir = Ws().data / "npy";
  fs::remove_all(dir);
  fs::create_directories(dir);
  WriteFile(dir / "x.npy", bytes);
  ReadSamples(InputsGraph({"x"}), dir.string());
}

void Npz(const std::string& bytes) {
  const fs::path path = Ws().data / "fuzz.npz";
  WriteFile(path, bytes);
  Guard([&] { ReadNpz(path.string()); });
  std::vector<std::string> keys;
  try {
    keys = NpzArchive::Open(path.string()).keys();
  } catch (const Error& e) {
    Refused(e);
    return;
  }
  if (keys.size() <= 4) ReadSamples(InputsGraph(keys), path.string());
}

void TensorProtoFile(const std::string& bytes) {
  const fs::path path = fs::path(ModelFolder()) / "input_0.pb";  // external data resolves against the model folder
  WriteFile(path, bytes);
  Guard([&] {
    std::string name;
    const Tensor t = ReadTensorProtoFile(path.string(), &name);
    onnx::TensorProto p;
    TensorToProto(t, name, &p);
    if (!SameTensor(TensorFromProto(p, "", "fuzz.pb (re-encoded)"), t)) std::abort();
  });
  fs::remove(path);
}

// The config's text, then optional --set assignments, each after a NUL byte.
void Config(const std::string& bytes) {
  const size_t nul = bytes.find('\0');
  std::vector<std::string> sets;
  for (size_t p = nul; p != std::string::npos && p < bytes.size();) {
    const size_t next = bytes.find('\0', p + 1);
    sets.push_back(bytes.substr(p + 1, next == std::string::npos ? std::string::npos : next - p - 1));
    p = next;
  }
  const fs::path path = Ws().data / "config.json";
  WriteFile(path, bytes.substr(0, nul));
  Guard([&] {
    const ConfigFile c = LoadConfig(path.string(), sets);
    const CalibrationConfig cal = ParseCalibrationConfig(c.json, c.dir);
    const QuantizationOptions rc = ParseQuantizationOptions(c.json);
    const ValidationConfig val = ParseValidationConfig(c.json, c.dir);
    for (const char* node : {"/blocks.0/attn/MatMul", "", "Conv_3"}) (void)IsExcluded(rc, node);
    (void)QuantizedModelMetadata(c, "0", "0");  // digests the config's JSON dump
    // With opset 0 EffectiveConfig reads `model` (any file the config names): only the explicit case here.
    if (rc.opset != 0) (void)EffectiveConfig(c, cal, rc, val).dump();
  });
}

void CalibrationTable(const std::string& bytes) {
  Guard([&] { ParseQuantTable(bytes, "fuzz.calib.json"); });
  Guard([&] {  // ptq merge-stats: read two shards, merge, choose parameters again, write the table
    const nlohmann::json j = ParseJsonText(bytes, "fuzz.calib.json", ErrorKind::kInput);
    TableProvenance p;
    CalibrationResult a = CalibrationTableFromJson(j, "fuzz.calib.json", &p);
    const CalibrationResult b = a;
    MergeCalibrationResults(&a, p, b, p, "fuzz.calib.json (again)");
    Graph g;  // the model: every weight of the table as a float constant of its recorded shape
    int64_t elements = 0;
    for (const auto& [name, t] : a.tensors) {
      if (t.role != TensorRole::kWeight) continue;
      elements += ShapeSize(t.shape);
      if (elements > (1 << 20)) return;
      Tensor w(DataType::kFloat, t.shape);
      for (int64_t i = 0; i < w.size(); ++i) w.data<float>()[i] = static_cast<float>(i % 7) - 3.0f;
      g.constants[name] = w;
    }
    CalibrationOptions o;
    const auto& methods = RangeMethodNames();
    if (std::find(methods.begin(), methods.end(), p.method) != methods.end()) o.method = p.method;
    if (p.percentile > 0 && p.percentile <= 100) o.percentile = p.percentile;
    ChooseQuantization(g, o, &a);
    (void)CalibrationTableToJson(a, p).dump();
  });
}

// A flags byte, the model's bytes, kTableSeparator, the table's text. Flags: 1 qdq, 2 no attention,
// 4 Gather in op_types, 8 a regex in exclude_nodes, 16 opset 17.
constexpr char kTableSeparator[] = "\n#TABLE#\n";

void Rewrite(const std::string& bytes) {
  if (bytes.empty()) return;
  const auto flags = static_cast<uint8_t>(bytes[0]);
  const size_t sep = bytes.rfind(kTableSeparator);
  if (sep == std::string::npos || sep == 0) return;
  onnx::ModelProto model;
  try {  // ptq rewrites models that calibration loaded (the table's model_sha256 says so)
    ParseModelProto(bytes.substr(1, sep - 1), "fuzz.onnx", &model);
    Session session(std::make_shared<const Graph>(GraphFromModel(model, ModelFolder(), "fuzz.onnx")));
  } catch (const Error& e) {
    Refused(e);
    return;
  }
  QuantTable table;
  try {
    table = ParseQuantTable(bytes.substr(sep + std::strlen(kTableSeparator)), "fuzz.calib.json");
  } catch (const Error& e) {
    Refused(e);
    return;
  }
  QuantizationOptions rc;
  if (flags & 1) rc.format = QuantFormat::kQdq;
  if (flags & 2) rc.attention = false;
  if (flags & 4) rc.op_types.push_back("Gather");
  if (flags & 8) rc.exclude_nodes = {"/(attn|Conv_1)/"};
  if (flags & 16) rc.opset = 17;
  Guard([&] {
    RewriteInfo info;
    const onnx::ModelProto out = RewriteModel(model, ModelFolder(), table, rc, {{"ptq_version", "fuzz"}}, &info);
    // The int8 model must load in ptq's own runtime too.
    Session session(std::make_shared<const Graph>(GraphFromModel(out, ModelFolder(), "fuzz.int8.onnx")));
  });
}

}  // namespace

const std::vector<Target>& Targets() {
  static const std::vector<Target> targets = {
      {"model_load", ModelLoad},     {"npy", Npy},       {"npz", Npz},
      {"tensor_proto", TensorProtoFile}, {"config", Config}, {"calibration_table", CalibrationTable},
      {"rewrite", Rewrite},
  };
  return targets;
}

const Target* FindTarget(const std::string& name) {
  for (const Target& t : Targets()) {
    if (name == t.name) return &t;
  }
  return nullptr;
}

void SetFuzzLimits() {
  SetMaxTensorBytes(int64_t{64} << 20);
  SetMaxModelBytes(int64_t{256} << 20);
}

const std::string& ModelFolder() {
  static const std::string folder = Ws().model.string();
  return folder;
}

}  // namespace ptq::fuzz
