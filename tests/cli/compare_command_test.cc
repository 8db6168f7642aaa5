// Tests of `ptq compare`: a model against itself, the same figures as `ptq quantize`'s report for its own
// int8 model, layer rows for models with ONNX Runtime's names, the report files, and the errors.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "runtime/model_io.h"
#include "runtime/npy.h"
#include "tests/cli/cli_test_util.h"

namespace ptq {
namespace {

namespace fs = std::filesystem;
using testing::ReadText;
using testing::RunPtq;
using testing::TempDir;

const std::string kCnn = std::string(PTQ_SOURCE_DIR) + "/tests/data/digits_cnn/";
const std::string kVit = std::string(PTQ_SOURCE_DIR) + "/tests/data/digits_vit/";

// `ptq quantize` of `model` on `data` (calibration and validation) into dir/<name>; the report JSON.
nlohmann::json Quantize(const fs::path& dir, const std::string& model, const std::string& data, const std::string& labels,
                        const std::string& format, int batch, const std::string& name) {
  nlohmann::json c = {{"model", model},
                      {"output", (dir / name).string()},
                      {"calibration", {{"data", data}, {"batch_size", batch}}},
                      {"quantization", {{"format", format}}}};
  if (!labels.empty()) c["validation"] = {{"labels", labels}};
  std::ofstream(dir / (name + ".json")) << c.dump();
  const auto r = RunPtq("quantize --quiet --config " + (dir / (name + ".json")).string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const fs::path report = dir / (fs::path(name).stem().string() + ".report.json");
  return nlohmann::json::parse(ReadText(report));
}

// The model as ONNX Runtime's quantizer names things, with ptq's metadata removed: every name ptq made
// ("<x>/quantized", "<x>/dequantized", "<x>/scale", ...) renamed: QuantizeLinear outputs
// "<x>_QuantizeLinear_Output" (QDQ) and other 8-bit outputs and weights "<x>_quantized", DequantizeLinear
// outputs "<x>_DequantizeLinear_Output", anything else with its last '/' made '_'.
void RenameAsOrt(const std::string& float_path, const std::string& in, const std::string& out) {
  onnx::ModelProto f, m;
  LoadModelProto(float_path, &f);
  LoadModelProto(in, &m);
  std::set<std::string> float_names;
  for (const auto& n : f.graph().node()) float_names.insert(n.output().begin(), n.output().end());
  for (const auto& t : f.graph().initializer()) float_names.insert(t.name());
  for (const auto& v : f.graph().input()) float_names.insert(v.name());
  std::map<std::string, std::string> renamed;
  auto base = [](const std::string& s, const std::string& suffix) {
    const size_t p = s.rfind(suffix);
    return p == std::string::npos ? std::string() : s.substr(0, p);
  };
  auto name_of = [&](const std::string& s, const std::string& producer) {
    if (s.empty() || float_names.count(s)) return s;
    std::string b = base(s, "/quantized");
    if (!b.empty()) return b + (producer == "QuantizeLinear" ? "_QuantizeLinear_Output" : "_quantized");
    b = base(s, "/dequantized");
    if (!b.empty()) return b + "_DequantizeLinear_Output";
    std::string r = s;
    const size_t p = r.rfind('/');
    if (p != std::string::npos) r[p] = '_';
    return r;
  };
  for (const auto& n : m.graph().node()) {
    for (const auto& o : n.output()) renamed[o] = name_of(o, n.op_type());
  }
  for (const auto& t : m.graph().initializer()) renamed[t.name()] = name_of(t.name(), "");
  auto map = [&](std::string* s) {
    auto it = renamed.find(*s);
    if (it != renamed.end()) *s = it->second;
  };
  for (auto& n : *m.mutable_graph()->mutable_node()) {
    for (auto& i : *n.mutable_input()) map(&i);
    for (auto& o : *n.mutable_output()) map(&o);
    std::string nn = n.name();
    for (char& c : nn) c = c == '/' ? '_' : c;
    n.set_name(nn);
  }
  for (auto& t : *m.mutable_graph()->mutable_initializer()) map(t.mutable_name());
  for (auto& v : *m.mutable_graph()->mutable_value_info()) map(v.mutable_name());
  for (auto& v : *m.mutable_graph()->mutable_output()) map(v.mutable_name());
  m.clear_metadata_props();
  m.set_producer_name("onnxruntime.quantization");
  SaveModelProto(m, out);
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() > suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// tensor -> SQNR of a report's layers.
std::map<std::string, double> LayerSqnr(const nlohmann::json& report) {
  std::map<std::string, double> out;
  for (const auto& l : report["layers"]) out[l["tensor"].get<std::string>()] = l["sqnr_db"].get<double>();
  return out;
}

nlohmann::json Compare(const std::string& args, const fs::path& report) {
  const auto r = RunPtq("compare " + args + " --quiet --report " + report.string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "");  // --quiet with --report: nothing on stdout or stderr
  return nlohmann::json::parse(ReadText(report));
}

TEST(CompareCommand, AModelAgainstItselfHasNoError) {
  TempDir tmp;
  const std::string m = kCnn + "digits_cnn.onnx";
  const auto r = RunPtq("compare " + m + " " + m + " --data " + kCnn + "eval --report " + (tmp.path() / "r.json").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("logits"), std::string::npos) << r.output;  // the table
  EXPECT_NE(r.output.find("∞"), std::string::npos) << r.output;
  const auto report = nlohmann::json::parse(ReadText(tmp.path() / "r.json"));
  const auto& o = report["outputs"][0];
  EXPECT_EQ(o["sqnr_db"], "inf");
  EXPECT_EQ(o["cosine"], 1.0);
  EXPECT_EQ(o["max_abs_error"], 0.0);
  EXPECT_TRUE(report["layers"].empty());
  EXPECT_EQ(report["provenance"]["validation_samples"], 128);
  EXPECT_EQ(report["provenance"]["model_sha256"], report["provenance"]["quantized_model_sha256"]);
  ASSERT_EQ(report["warnings"].size(), 1u);
  EXPECT_NE(report["warnings"][0].get<std::string>().find("no quantized op"), std::string::npos);
}

// ptq's own int8 models (the ViT in QOperator form with labels and batches of 16, the CNN in QDQ form):
// `ptq compare` on the same data gives the figures `ptq quantize` reported, per output and per layer.
TEST(CompareCommand, GivesTheFiguresOfTheQuantizeReport) {
  struct Case {
    std::string dir, model, labels, format;
    int batch;
  };
  for (const Case& c : {Case{kVit, "digits_vit_opset13.onnx", "eval_labels.npy", "qoperator", 16},
                        Case{kCnn, "digits_cnn.onnx", "", "qdq", 1}}) {
    TempDir tmp;
    const std::string data = c.dir + (c.labels.empty() ? "calib" : "eval");
    const std::string labels = c.labels.empty() ? "" : c.dir + c.labels;
    const auto quantized = Quantize(tmp.path(), c.dir + c.model, data, labels, c.format, c.batch, "q.onnx");
    const auto compared = Compare(c.dir + c.model + " " + (tmp.path() / "q.onnx").string() + " --data " + data +
                                      " --batch-size " + std::to_string(c.batch) + (labels.empty() ? "" : " --labels " + labels),
                                  tmp.path() / "c.json");
    EXPECT_EQ(compared["outputs"], quantized["outputs"]) << c.model;
    ASSERT_GT(quantized["layers"].size(), 5u);
    ASSERT_EQ(compared["layers"].size(), quantized["layers"].size()) << c.model;
    for (size_t i = 0; i < compared["layers"].size(); ++i) {
      for (const char* k : {"tensor", "int8_tensor", "sqnr_db", "scale", "zero_point", "clipped_fraction"}) {
        EXPECT_EQ(compared["layers"][i][k], quantized["layers"][i][k]) << c.model << " layer " << i << " " << k;
      }
    }
    EXPECT_EQ(compared["provenance"]["model_sha256"], quantized["provenance"]["model_sha256"]);
    EXPECT_EQ(compared["provenance"]["validation_samples"], quantized["provenance"]["validation_samples"]);
    EXPECT_EQ(compared["provenance"]["quantized_model"], (tmp.path() / "q.onnx").string());
    EXPECT_TRUE(compared["warnings"].empty()) << compared["warnings"];
  }
}

// The CNN's QDQ and QOperator models renamed as ONNX Runtime's quantizer names tensors, without ptq's
// metadata: the same layer rows, matched through QuantizeLinear inputs and the "_quantized" names.
TEST(CompareCommand, ModelsWithOnnxRuntimeNamesGetTheSameLayerRows) {
  for (const char* format : {"qdq", "qoperator"}) {
    TempDir tmp;
    const std::string f = kCnn + "digits_cnn.onnx", data = " --data " + kCnn + "eval";
    Quantize(tmp.path(), f, kCnn + "calib", "", format, 1, "q.onnx");
    const std::string ort = (tmp.path() / "ort.onnx").string();
    RenameAsOrt(f, (tmp.path() / "q.onnx").string(), ort);
    ASSERT_EQ(ReadText(ort).find("/quantized"), std::string::npos) << "the renamed model still has ptq's names";
    const auto ours = Compare(f + " " + (tmp.path() / "q.onnx").string() + data, tmp.path() / "ours.json");
    const auto theirs = Compare(f + " " + ort + data, tmp.path() / "theirs.json");
    EXPECT_EQ(theirs["outputs"], ours["outputs"]) << format;
    ASSERT_GT(ours["layers"].size(), 3u) << format;
    EXPECT_EQ(LayerSqnr(theirs), LayerSqnr(ours)) << format;
    for (const auto& l : theirs["layers"]) {
      const std::string t = l["int8_tensor"];
      EXPECT_TRUE(EndsWith(t, "_QuantizeLinear_Output") || EndsWith(t, "_quantized")) << t;
    }
  }
}

// ptq's metadata names the float model an int8 model was made from (its SHA-256): comparing it with
// another file (here the same graph with another doc_string) is done, with a warning in the report.
TEST(CompareCommand, WarnsWhenTheInt8ModelWasMadeFromAnotherFloatModel) {
  TempDir tmp;
  Quantize(tmp.path(), kCnn + "digits_cnn.onnx", kCnn + "calib", "", "qoperator", 1, "q.onnx");
  onnx::ModelProto other;
  LoadModelProto(kCnn + "digits_cnn.onnx", &other);
  other.set_doc_string("another file");
  SaveModelProto(other, (tmp.path() / "other.onnx").string());
  const auto r = Compare((tmp.path() / "other.onnx").string() + " " + (tmp.path() / "q.onnx").string() + " --data " + kCnn +
                             "eval",
                         tmp.path() / "r.json");
  ASSERT_EQ(r["warnings"].size(), 1u) << r["warnings"];
  EXPECT_NE(r["warnings"][0].get<std::string>().find("from a float model with another SHA-256"), std::string::npos);
  EXPECT_EQ(r["layers"].size(), 6u);  // the graphs are the same: every layer is still matched
}

TEST(CompareCommand, ReportAsHtmlOrMarkdownWithTheJsonBeside) {
  TempDir tmp;
  const std::string args = kCnn + "digits_cnn.onnx " + kCnn + "digits_cnn.onnx --data " + kCnn + "eval --max-samples 8";
  auto r = RunPtq("compare " + args + " --report " + (tmp.path() / "a" / "r.html").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(ReadText(tmp.path() / "a" / "r.html").find("<html"), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(ReadText(tmp.path() / "a" / "r.json"))["provenance"]["validation_samples"], 8);
  EXPECT_NE(r.output.find("report: "), std::string::npos) << r.output;
  r = RunPtq("compare " + args + " --report " + (tmp.path() / "r.md").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(ReadText(tmp.path() / "r.md").find("logits"), std::string::npos);
  EXPECT_TRUE(fs::exists(tmp.path() / "r.json"));
  r = RunPtq("compare " + args + " --report " + (tmp.path() / "r.txt").string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find(".json, .html or .md"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(tmp.path() / "r.txt"));
}

// Bad models or data: exit code 2, a message naming the file or input, and no report file.
TEST(CompareCommand, BadModelsOrDataFailWithExitCode2AndWriteNothing) {
  TempDir tmp;
  const std::string cnn = kCnn + "digits_cnn.onnx", vit = kVit + "digits_vit_opset13.onnx";
  const std::string truncated = (tmp.path() / "truncated.onnx").string();
  const std::string bytes = ReadText(cnn);
  std::ofstream(truncated, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  const std::string few_labels = (tmp.path() / "few.npy").string();
  std::ofstream(few_labels, std::ios::binary) << EncodeNpy(Tensor::FromVector<int64_t>({3}, {1, 2, 3}));  // for 128 samples
  const fs::path report = tmp.path() / "out" / "r.json";
  struct Case {
    std::string args, message;
  };
  for (const Case& c : {Case{tmp.path().string() + "/missing.onnx " + cnn + " --data " + kCnn + "eval", "missing.onnx"},
                        Case{cnn + " " + truncated + " --data " + kCnn + "eval", "truncated.onnx"},
                        Case{cnn + " " + cnn + " --data " + kVit + "eval", "'images'"},
                        Case{cnn + " " + vit + " --data " + kCnn + "eval", "different inputs"},
                        Case{cnn + " " + cnn + " --data " + kCnn + "eval --labels " + few_labels, "3 labels for 128 samples"}}) {
    const auto r = RunPtq("compare " + c.args + " --report " + report.string());
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(report)) << c.args;
  }
}

TEST(CompareCommand, UsageErrorsAndHelp) {
  const std::string cnn = kCnn + "digits_cnn.onnx";
  for (const std::string& args : {cnn + " --data " + kCnn + "eval", cnn + " " + cnn,
                                  cnn + " " + cnn + " --data " + kCnn + "eval --batch-size 0"}) {
    const auto r = RunPtq("compare " + args);
    EXPECT_EQ(r.exit_code, 1) << args << "\n" << r.output;
  }
  auto r = RunPtq("compare --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.output.find("--report"), std::string::npos);
  r = RunPtq("--help");
  EXPECT_NE(r.output.find("compare"), std::string::npos);
  EXPECT_NE(r.output.find("inspect"), std::string::npos);
}

}  // namespace
}  // namespace ptq
