// Tests of the int8 model written with external data (output_external_data): one hash-named data file
// beside the model that ptq and ONNX's checker load, the same outputs as the model written inline, no
// stale data file after a new run, and the key's checks.
#include <gtest/gtest.h>
#include <onnx/checker.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "runtime/model_io.h"
#include "runtime/sha256.h"
#include "tests/cli/cli_test_util.h"

namespace ptq {
namespace {

namespace fs = std::filesystem;
using testing::ReadText;
using testing::RunPtq;
using testing::TempDir;

const std::string kVit = std::string(PTQ_SOURCE_DIR) + "/tests/data/digits_vit/";

class ExternalDataOutput : public ::testing::Test {
 protected:
  // Writes config `name`.json: the digits ViT, outputs in out_<name>/, with `extra` keys merged in.
  std::string Config(const std::string& name, const nlohmann::json& extra) {
    nlohmann::json c = {{"model", kVit + "digits_vit_opset13.onnx"},
                        {"output", (tmp_.path() / ("out_" + name) / "vit.int8.onnx").string()},
                        {"calibration", {{"data", kVit + "calib"}, {"batch_size", 16}, {"max_samples", 32}}},
                        {"validation", {{"data", kVit + "eval"}}}};
    c.merge_patch(extra);
    const fs::path p = tmp_.path() / (name + ".json");
    std::ofstream(p) << c.dump(1);
    return p.string();
  }
  // The data files in `dir` ("*.data").
  static std::vector<std::string> DataFiles(const fs::path& dir) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.path().extension() == ".data") names.push_back(e.path().filename().string());
    }
    return names;
  }
  // ptq run's outputs of `model` on the first eval samples.
  std::string RunOutputs(const fs::path& model, const std::string& name) {
    const fs::path out = tmp_.path() / ("run_" + name);
    const auto r = RunPtq("run " + model.string() + " --inputs " + kVit + "eval --outputs " + out.string());
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return ReadText(out / "logits.npy");
  }
  TempDir tmp_;
};

TEST_F(ExternalDataOutput, AlwaysWritesOneHashNamedDataFileThatLoadsAndRunsAsTheInlineModel) {
  auto r = RunPtq("quantize --quiet --config " + Config("external", {{"output_external_data", "always"}}));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = RunPtq("quantize --quiet --config " + Config("inline", nlohmann::json::object()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const fs::path ext = tmp_.path() / "out_external", inl = tmp_.path() / "out_inline";
  EXPECT_TRUE(DataFiles(inl).empty());  // auto: a small model keeps its tensors inside
  const std::vector<std::string> data = DataFiles(ext);
  ASSERT_EQ(data.size(), 1u);
  const std::string bytes = ReadText(ext / data[0]);
  EXPECT_EQ(data[0], "vit.int8." + Sha256Hex(bytes).substr(0, 16) + ".data");
  EXPECT_LT(fs::file_size(ext / "vit.int8.onnx") * 2, fs::file_size(inl / "vit.int8.onnx"));

  // Every external tensor is in that file, page-aligned; together they fill it but for the padding.
  onnx::ModelProto m;
  LoadModelProto((ext / "vit.int8.onnx").string(), &m);
  int64_t referenced = 0, tensors = 0;
  for (const auto& t : m.graph().initializer()) {
    if (t.data_location() != onnx::TensorProto::EXTERNAL) continue;
    std::map<std::string, std::string> kv;
    for (const auto& e : t.external_data()) kv[e.key()] = e.value();
    EXPECT_EQ(kv["location"], data[0]) << t.name();
    EXPECT_EQ(std::stoll(kv["offset"]) % 4096, 0) << t.name();
    referenced += std::stoll(kv["length"]);
    ++tensors;
  }
  EXPECT_GT(tensors, 5);
  EXPECT_LE(static_cast<int64_t>(bytes.size()), referenced + (tensors + 1) * 4096);  // nothing written twice or left unused
  EXPECT_NO_THROW(onnx::checker::check_model((ext / "vit.int8.onnx").string()));

  // The same model: the same outputs, and the same report but for the size and the file's name.
  EXPECT_EQ(RunOutputs(ext / "vit.int8.onnx", "external"), RunOutputs(inl / "vit.int8.onnx", "inline"));
  auto re = nlohmann::json::parse(ReadText(ext / "vit.int8.report.json"));
  auto ri = nlohmann::json::parse(ReadText(inl / "vit.int8.report.json"));
  EXPECT_EQ(re["model"]["external_data"], data[0]);
  EXPECT_TRUE(ri["model"]["external_data"].is_null());
  EXPECT_EQ(re["model"]["int8_bytes"].get<int64_t>(),
            static_cast<int64_t>(fs::file_size(ext / "vit.int8.onnx") + bytes.size()));
  EXPECT_EQ(re["outputs"], ri["outputs"]);
  EXPECT_EQ(re["layers"], ri["layers"]);
}

TEST_F(ExternalDataOutput, ANewRunReplacesTheDataFileAndTheModelNeverPointsAtAStaleOne) {
  const std::string first = Config("run", {{"output_external_data", "always"}});
  ASSERT_EQ(RunPtq("quantize --quiet --config " + first).exit_code, 0);
  const fs::path out = tmp_.path() / "out_run";
  const std::vector<std::string> before = DataFiles(out);
  ASSERT_EQ(before.size(), 1u);
  const std::string second =
      Config("run", {{"output_external_data", "always"}, {"quantization", {{"weights", {{"per_channel", false}}}}}});
  const auto r = RunPtq("quantize --config " + second);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("ptq: memory: rewrite: peak RSS "), std::string::npos) << r.output;
  const std::vector<std::string> after = DataFiles(out);
  ASSERT_EQ(after.size(), 1u);
  EXPECT_NE(after[0], before[0]);
  EXPECT_NE(ReadText(out / "vit.int8.onnx").find(after[0]), std::string::npos);
  // ptq rewrite writes the same way, and `never` puts the tensors back inside the model.
  const std::string table = (out / "vit.int8.calib.json").string();
  ASSERT_EQ(RunPtq("rewrite --quiet --config " + second + " --table " + table).exit_code, 0);
  EXPECT_EQ(DataFiles(out), after);
  ASSERT_EQ(RunPtq("rewrite --quiet --config " + second + " --table " + table + " --set output_external_data=never").exit_code, 0);
  EXPECT_TRUE(DataFiles(out).empty());
}

TEST_F(ExternalDataOutput, TheKeyIsPrintedWithItsDefaultAndCheckedByValue) {
  auto r = RunPtq("quantize --print-config --config " + Config("print", nlohmann::json::object()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(nlohmann::json::parse(r.output)["output_external_data"], "auto");
  r = RunPtq("quantize --config " + Config("bad", {{"output_external_data", "sometimes"}}));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("'output_external_data' must be \"auto\", \"always\" or \"never\""), std::string::npos) << r.output;
  r = RunPtq("quantize --config " + Config("typo", {{"output_external_dat", "always"}}));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("did you mean 'output_external_data'?"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace ptq
