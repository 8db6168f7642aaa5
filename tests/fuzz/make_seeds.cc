// Writes the seed inputs that tests/data does not hold: small models with external data, TensorProtos,
// configs, calibration tables and model+table pairs for the rewrite. Usage: ptq_fuzz_make_seeds OUT_DIR
// (creates OUT_DIR/<target>/). scripts/fuzz.sh adds the files of tests/data.
#include <onnx/onnx_pb.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "calibrate/calibration_table.h"
#include "runtime/npy.h"
#include "tests/runtime/model_builder.h"

namespace ptq {
namespace {

namespace fs = std::filesystem;
using testing::ModelBuilder;

fs::path g_out;

void Write(const std::string& target, const std::string& name, const std::string& bytes) {
  fs::create_directories(g_out / target);
  std::ofstream(g_out / target / name, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

Tensor Floats(const Shape& shape, float step) {
  Tensor t(DataType::kFloat, shape);
  for (int64_t i = 0; i < t.size(); ++i) t.data<float>()[i] = step * static_cast<float>(i % 11 - 5);
  return t;
}

void External(onnx::TensorProto* p, const std::string& name, const Shape& shape, const std::string& location,
              int64_t offset, int64_t length) {
  p->set_name(name);
  p->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : shape) p->add_dims(d);
  p->set_data_location(onnx::TensorProto::EXTERNAL);
  auto add = [&](const char* k, const std::string& v) {
    auto* kv = p->add_external_data();
    kv->set_key(k);
    kv->set_value(v);
  };
  add("location", location);
  if (offset >= 0) add("offset", std::to_string(offset));
  if (length >= 0) add("length", std::to_string(length));
}

// x [1, 4] -> MatMul W [4, 3] -> Add b -> Relu -> y.
ModelBuilder MatMulModel() {
  ModelBuilder b(13);
  b.Input("x", DataType::kFloat, {1, 4}).Output("y", DataType::kFloat, {1, 3});
  b.Initializer("W", Floats({4, 3}, 0.25f)).Initializer("b", Floats({3}, 0.1f));
  b.Node("MatMul", {"x", "W"}, {"xw"}, "mm");
  b.Node("Add", {"xw", "b"}, {"xwb"}, "add");
  b.Node("Relu", {"xwb"}, {"y"}, "relu");
  return b;
}

// x [1, 2, 5, 5] -> Conv W [3, 2, 3, 3] + B -> y.
ModelBuilder ConvModel() {
  ModelBuilder b(13);
  b.Input("x", DataType::kFloat, {1, 2, 5, 5}).Output("y", DataType::kFloat, {1, 3, 3, 3});
  b.Initializer("W", Floats({3, 2, 3, 3}, 0.1f)).Initializer("B", Floats({3}, 0.2f));
  b.Node("Conv", {"x", "W", "B"}, {"y"}, "Conv_1");
  return b;
}

// Q, K, V projections, softmax(Q Kᵀ / 2) V: the attention pattern.
ModelBuilder AttentionModel() {
  ModelBuilder b(13);
  b.Input("x", DataType::kFloat, {1, 4, 8}).Output("y", DataType::kFloat, {1, 4, 8});
  b.Initializer("Wq", Floats({8, 8}, 0.05f)).Initializer("Wk", Floats({8, 8}, 0.04f)).Initializer("Wv", Floats({8, 8}, 0.03f));
  b.Initializer("two", Tensor::Scalar<float>(2.0f));
  b.Node("MatMul", {"x", "Wq"}, {"q"}, "attn_q");
  b.Node("MatMul", {"x", "Wk"}, {"k"}, "attn_k");
  b.Node("MatMul", {"x", "Wv"}, {"v"}, "attn_v");
  auto& t = b.Node("Transpose", {"k"}, {"kt"}, "attn_kt");
  auto* perm = t.add_attribute();
  perm->set_name("perm");
  perm->set_type(onnx::AttributeProto::INTS);
  for (int64_t p : {0, 2, 1}) perm->add_ints(p);
  b.Node("MatMul", {"q", "kt"}, {"s"}, "attn_scores");
  b.Node("Div", {"s", "two"}, {"sd"}, "attn_div");
  auto& sm = b.Node("Softmax", {"sd"}, {"p"}, "attn_softmax");
  auto* axis = sm.add_attribute();
  axis->set_name("axis");
  axis->set_type(onnx::AttributeProto::INT);
  axis->set_i(-1);
  b.Node("MatMul", {"p", "v"}, {"y"}, "attn_context");
  return b;
}

std::string Entry(const std::string& name, const std::string& role, const std::string& dtype, const std::string& scale,
                  const std::string& zp, const std::string& shape, const std::string& axis = "") {
  return "\"" + name + "\": {\"role\": \"" + role + "\", \"dtype\": \"" + dtype + "\", \"scale\": " + scale +
         ", \"zero_point\": " + zp + ", \"shape\": " + shape + (axis.empty() ? "" : ", \"axis\": " + axis) + "}";
}

std::string Table(const std::string& entries) {
  return "{\"format\": \"ptq-calibration-table\", \"version\": 1, \"model_sha256\": \"0\", \"config_sha256\": \"0\", "
         "\"tensors\": {" + entries + "}}";
}

void RewriteSeed(const std::string& name, uint8_t flags, const ModelBuilder& b, const std::string& table) {
  Write("rewrite", name, std::string(1, static_cast<char>(flags)) + b.Serialize() + "\n#TABLE#\n" + table);
}

// Loop(M = 3, cond omitted, acc = 0) whose body holds an If reading the main graph's x and an
// initializer; the body also scans the If's output (subgraphs, captures, implicit inputs).
ModelBuilder ControlFlowModel() {
  ModelBuilder b(13);
  b.Input("x", DataType::kFloat, {}).Output("acc", DataType::kFloat).Output("scan", DataType::kFloat);
  b.Initializer("M", Tensor::Scalar<int64_t>(3)).Initializer("zero", Tensor::Scalar<float>(0));
  b.Initializer("one", Tensor::Scalar<int64_t>(1));
  auto graph_attr = [](onnx::NodeProto& n, const char* name) {
    onnx::AttributeProto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::GRAPH);
    return a->mutable_g();
  };
  auto add_node = [](onnx::GraphProto* g, const char* op, std::initializer_list<const char*> in,
                     std::initializer_list<const char*> out) -> onnx::NodeProto& {
    onnx::NodeProto* n = g->add_node();
    n->set_op_type(op);
    for (const char* i : in) n->add_input(i);
    for (const char* o : out) n->add_output(o);
    return *n;
  };
  onnx::NodeProto& loop = b.Node("Loop", {"M", "", "zero"}, {"acc", "scan"}, "loop");
  onnx::GraphProto* body = graph_attr(loop, "body");
  for (const char* in : {"i", "c", "acc_in"}) body->add_input()->set_name(in);
  add_node(body, "Less", {"i", "one"}, {"first"});
  onnx::NodeProto& pick = add_node(body, "If", {"first"}, {"term"});
  add_node(graph_attr(pick, "then_branch"), "Neg", {"x"}, {"t"});
  pick.mutable_attribute(0)->mutable_g()->add_output()->set_name("t");
  graph_attr(pick, "else_branch")->add_output()->set_name("x");
  add_node(body, "Add", {"acc_in", "term"}, {"acc_out"});
  for (const char* out : {"c", "acc_out", "term"}) body->add_output()->set_name(out);
  return b;
}

void ModelSeeds() {
  Write("model_load", "matmul.onnx", MatMulModel().Serialize());
  Write("model_load", "conv.onnx", ConvModel().Serialize());
  Write("model_load", "attention.onnx", AttentionModel().Serialize());
  const struct {
    const char* name;
    const char* location;
    int64_t offset, length;
  } ext[] = {{"ext_weights.onnx", "weights.bin", 64, 48}, {"ext_nested.onnx", "sub/nested.bin", -1, -1},
             {"ext_link_in.onnx", "link_in.bin", 0, 48},  {"ext_link_out.onnx", "link_out.bin", 0, 48},
             {"ext_dotdot.onnx", "../outside.bin", 0, 48}, {"ext_absolute.onnx", "/etc/passwd", 0, 48},
             {"ext_dir_link.onnx", "up/outside.bin", 0, 48}};
  for (const auto& e : ext) {
    ModelBuilder b(13);
    b.Input("x", DataType::kFloat, {4, 3}).Output("y", DataType::kFloat, {4, 3});
    External(b.model().mutable_graph()->add_initializer(), "w", {4, std::string(e.location) == "sub/nested.bin" ? 16 : 3},
             e.location, e.offset, e.length);
    if (std::string(e.location) == "sub/nested.bin") {
      b.model().mutable_graph()->mutable_initializer(0)->set_dims(0, 4);
      b.model().mutable_graph()->mutable_initializer(0)->set_dims(1, 16);
    }
    b.Node("Add", {"x", "w"}, {"y"}, "add");
    Write("model_load", e.name, b.Serialize());
  }
  ModelBuilder c(13);  // a Constant node with a tensor value and an int4 initializer
  c.Output("y", DataType::kFloat, {2});
  auto& k = c.Node("Constant", {}, {"y"}, "const");
  auto* v = k.add_attribute();
  v->set_name("value");
  v->set_type(onnx::AttributeProto::TENSOR);
  TensorToProto(Floats({2}, 1.0f), "", v->mutable_t());
  Tensor i4(DataType::kInt4, {5});
  for (int i = 0; i < 5; ++i) i4.data<int8_t>()[i] = static_cast<int8_t>(i - 3);
  c.Initializer("q", i4);
  Write("model_load", "constant_int4.onnx", c.Serialize());
  Write("model_load", "loop_if.onnx", ControlFlowModel().Serialize());
}

void TensorProtoSeeds() {
  onnx::TensorProto p;
  TensorToProto(Floats({2, 3}, 0.5f), "input", &p);
  Write("tensor_proto", "float_raw.pb", p.SerializeAsString());
  p.Clear();
  p.set_name("ids");
  p.set_data_type(onnx::TensorProto::INT64);
  p.add_dims(3);
  for (int64_t v : {1, -2, 3}) p.add_int64_data(v);
  Write("tensor_proto", "int64_typed.pb", p.SerializeAsString());
  p.Clear();
  p.set_data_type(static_cast<int32_t>(DataType::kUint4));  // ONNX 1.12 predates UINT4 in its enum
  p.add_dims(3);
  p.add_int32_data(0x21);
  p.add_int32_data(0x03);
  Write("tensor_proto", "uint4_typed.pb", p.SerializeAsString());
  p.Clear();
  p.set_data_type(onnx::TensorProto::UINT64);
  p.add_dims(2);
  p.add_uint64_data(7);
  p.add_uint64_data(~uint64_t{0});
  Write("tensor_proto", "uint64_typed.pb", p.SerializeAsString());
  p.Clear();
  External(&p, "w", {4, 4}, "weights.bin", 128, 64);
  Write("tensor_proto", "external.pb", p.SerializeAsString());
  p.Clear();
  External(&p, "w", {2}, "link_out.bin", 0, 8);
  Write("tensor_proto", "external_link_out.pb", p.SerializeAsString());
}

void NpySeeds() {
  Write("npy", "f4.npy", EncodeNpy(Floats({3, 2}, 0.5f)));
  Tensor u8(DataType::kUint8, {4, 1, 2});
  Write("npy", "u1.npy", EncodeNpy(u8));
  Write("npy", "scalar.npy", EncodeNpy(Tensor::Scalar<int64_t>(5)));
  Tensor b(DataType::kBool, {3});
  Write("npy", "b1.npy", EncodeNpy(b));
}

void ConfigSeeds() {
  Write("config", "minimal.json", R"({"model": "m.onnx"})");
  Write("config", "full.json", R"({
  "model": "m.onnx", "output": "out/m.int8.onnx",
  "calibration": {"data": "calib", "max_samples": 8, "batch_size": 2, "method": "entropy", "percentile": 99.9,
                  "softmax_output": "fixed", "table": "t.json"},
  "quantization": {"format": "qdq", "activations": {"dtype": "int8", "symmetric": true, "reduce_range": false},
                   "weights": {"dtype": "int8", "symmetric": true, "per_channel": false},
                   "op_types": ["MatMul", "Conv", "Gather"], "attention": false,
                   "exclude_nodes": ["head", "/blocks\\.[0-9]+/attn/"],
                   "overrides": {"x": {"min": -1, "max": 1}, "y": {"scale": 0.5, "zero_point": 3, "dtype": "uint8"}},
                   "opset": 17},
  "validation": {"data": "eval", "labels": "labels.npy", "report": "r.md",
                 "tasks": {"logits": {"type": "classification"}, "seq": {"type": "ctc", "blank": 0, "axis": 2},
                           "maps": {"type": "text_detection", "threshold": 0.3, "min_size": 3, "iou": 0.5},
                           "mask": {"type": "segmentation"}},
                 "gate": {"min_sqnr_db": 20, "max_top1_drop": 0.01, "min_task_agreement": 0.9}}
})");
  Write("config", "with_sets.json", std::string(R"({"model": "m.onnx", "quantization": {"opset": 13}})") + '\0' +
                                        "calibration.method=mse" + '\0' + "quantization.exclude_nodes=[\"/a|b/\"]");
}

void TableSeeds() {
  CalibrationResult r;
  r.samples = 4;
  CalibratedTensor a;
  a.role = TensorRole::kActivation;
  a.histogram.Add({-1.5f, 0.0f, 0.0f, 0.25f, 2.0f, 3.5f, 1e-3f});
  a.shape = {1, 4};
  a.range_min = -1.5f;
  a.range_max = 3.5f;
  a.scales = {0.02f};
  a.zero_points = {75};
  r.tensors["x"] = a;
  CalibratedTensor s = a;
  s.role = TensorRole::kSoftmaxOutput;
  s.histogram = Histogram();
  s.histogram.Add({0.0f, 0.1f, 0.5f, 0.9f});
  r.tensors["p"] = s;
  CalibratedTensor w;
  w.role = TensorRole::kWeight;
  w.dtype = DataType::kInt8;
  w.shape = {4, 3};
  w.axis = 1;
  w.scales = {0.01f, 0.02f, 0.03f};
  w.zero_points = {0, 0, 0};
  r.tensors["W"] = w;
  TableProvenance p;
  p.model_digest = "m";
  p.config_digest = "c";
  p.method = "entropy";
  Write("calibration_table", "table.json", CalibrationTableToJson(r, p).dump(1));
  p.method = "mse";
  Write("calibration_table", "table_compact.json", CalibrationTableToJson(r, p).dump());
}

void RewriteSeeds() {
  const std::string mm = Table(Entry("x", "activation", "uint8", "[0.02]", "[128]", "[1, 4]") + ", " +
                               Entry("W", "weight", "int8", "[0.01, 0.02, 0.03]", "[0, 0, 0]", "[4, 3]", "1") + ", " +
                               Entry("xwb", "activation", "uint8", "[0.05]", "[10]", "[1, 3]") + ", " +
                               Entry("y", "activation", "uint8", "[0.05]", "[0]", "[1, 3]"));
  RewriteSeed("matmul_qoperator", 0, MatMulModel(), mm);
  RewriteSeed("matmul_qdq", 1, MatMulModel(), mm);
  const std::string conv = Table(Entry("x", "activation", "uint8", "[0.02]", "[128]", "[1, 2, 5, 5]") + ", " +
                                 Entry("W", "weight", "int8", "[0.01, 0.02, 0.03]", "[0, 0, 0]", "[3, 2, 3, 3]", "0") + ", " +
                                 Entry("y", "activation", "uint8", "[0.05]", "[0]", "[1, 3, 3, 3]"));
  RewriteSeed("conv_qoperator", 8, ConvModel(), conv);
  RewriteSeed("conv_qdq_opset17", 1 | 16, ConvModel(), conv);
  std::string att;
  for (const char* t : {"x", "q", "k", "v", "kt", "s", "y"}) {
    att += Entry(t, "activation", "int8", "[0.03]", "[0]", "[1, 4, 8]") + ", ";
  }
  for (const char* t : {"Wq", "Wk", "Wv"}) att += Entry(t, "weight", "int8", "[0.01]", "[0]", "[8, 8]") + ", ";
  att += Entry("p", "softmax_output", "uint8", "[0.0039]", "[0]", "[1, 4, 4]");
  RewriteSeed("attention", 0, AttentionModel(), Table(att));
  RewriteSeed("attention_qdq", 1, AttentionModel(), Table(att));
}

}  // namespace
}  // namespace ptq

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
    return 1;
  }
  ptq::g_out = argv[1];
  ptq::ModelSeeds();
  ptq::TensorProtoSeeds();
  ptq::NpySeeds();
  ptq::ConfigSeeds();
  ptq::TableSeeds();
  ptq::RewriteSeeds();
  return 0;
}
