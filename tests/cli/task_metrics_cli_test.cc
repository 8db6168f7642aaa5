// End to end: `ptq quantize` with validation.tasks on a model built for the purpose, whose four outputs
// are a text-detection probability map, a segmentation map, CTC scores and class logits; the report's
// task figures are checked against what the inputs were drawn to give.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/npy.h"
#include "tests/cli/cli_test_util.h"
#include "tests/runtime/model_builder.h"

namespace ptq {
namespace {

namespace fs = std::filesystem;
using testing::ModelBuilder;
using testing::ReadText;
using testing::RunPtq;
using testing::TempDir;

constexpr int kSamples = 8;

// x [N, 1, 8, 8]:
//   prob   = Sigmoid(Conv(x, 1))              [N, 1, 8, 8]  text_detection
//   seg    = Conv(x, [1, -1])                 [N, 2, 8, 8]  segmentation (class 0 where x > 0)
//   ctc    = MatMul(Reshape(x, [N, 8, 8]), I)  [N, 8, 8]     ctc: rows are time steps, columns classes
//   logits = MatMul(Flatten(x), Q)            [N, 4]        classification (Q: quadrant k, weight k + 1)
void BuildModel(const fs::path& path) {
  ModelBuilder b;
  b.Input("x", DataType::kFloat, {-1, 1, 8, 8});
  b.Output("prob", DataType::kFloat, {-1, 1, 8, 8}).Output("seg", DataType::kFloat, {-1, 2, 8, 8});
  b.Output("ctc", DataType::kFloat, {-1, 8, 8}).Output("logits", DataType::kFloat, {-1, 4});
  b.Initializer("Wp", Tensor::FromVector<float>({1, 1, 1, 1}, {1.0f}));
  b.Initializer("Ws", Tensor::FromVector<float>({2, 1, 1, 1}, {1.0f, -1.0f}));
  std::vector<float> eye(64, 0.0f), quadrants(64 * 4, 0.0f);
  for (int i = 0; i < 8; ++i) eye[i * 8 + i] = 1.0f;
  for (int p = 0; p < 64; ++p) {
    const int k = (p / 8 >= 4) * 2 + (p % 8 >= 4);
    quadrants[p * 4 + k] = static_cast<float>(k + 1);
  }
  b.Initializer("I", Tensor::FromVector<float>({8, 8}, eye));
  b.Initializer("Q", Tensor::FromVector<float>({64, 4}, quadrants));
  b.Initializer("shape", Tensor::FromVector<int64_t>({3}, {-1, 8, 8}));
  b.Node("Conv", {"x", "Wp"}, {"p"}, "conv_prob");
  b.Node("Sigmoid", {"p"}, {"prob"}, "sigmoid");
  b.Node("Conv", {"x", "Ws"}, {"seg"}, "conv_seg");
  b.Node("Reshape", {"x", "shape"}, {"rows"}, "reshape");
  b.Node("MatMul", {"rows", "I"}, {"ctc"}, "mm_ctc");
  b.Node("Flatten", {"x"}, {"flat"}, "flatten");
  b.Node("MatMul", {"flat", "Q"}, {"logits"}, "mm_cls");
  std::ofstream(path, std::ios::binary) << b.Serialize();
}

// Sample i: -4 everywhere but two 3 x 3 blocks of +4, rows 1-3 from column 1 + i % 5 and rows 5-7 from
// column 5 - i % 5. Each map has 2 boxes; each CTC decode is [1 + i % 5, 5 - i % 5] (rows 0 and 4 are all
// equal: argmax 0, the blank; a block's rows have their first +4 at its first column).
Tensor Inputs() {
  std::vector<float> x(kSamples * 64, -4.0f);
  for (int i = 0; i < kSamples; ++i) {
    const int c1 = 1 + i % 5, c2 = 5 - i % 5;
    for (int d = 0; d < 3; ++d) {
      for (int e = 0; e < 3; ++e) {
        x[i * 64 + (1 + d) * 8 + c1 + e] = 4.0f;
        x[i * 64 + (5 + d) * 8 + c2 + e] = 4.0f;
      }
    }
  }
  return Tensor::FromVector<float>({kSamples, 1, 8, 8}, x);
}

fs::path WriteCase(const fs::path& dir, const nlohmann::json& validation) {
  BuildModel(dir / "model.onnx");
  fs::create_directories(dir / "data");
  WriteNpy((dir / "data" / "x.npy").string(), Inputs());
  const nlohmann::json c = {{"model", (dir / "model.onnx").string()},
                            {"output", (dir / "q.onnx").string()},
                            {"calibration", {{"data", (dir / "data").string()}, {"batch_size", 4}}},
                            {"validation", validation}};
  std::ofstream(dir / "c.json") << c.dump();
  return dir / "c.json";
}

const nlohmann::json kTasks = {{"prob", {{"type", "text_detection"}}},
                               {"seg", {{"type", "segmentation"}}},
                               {"ctc", {{"type", "ctc"}, {"blank", 0}}},
                               {"logits", {{"type", "classification"}}}};

TEST(TaskMetricsCli, TheReportCarriesEachOutputsTaskFigures) {
  TempDir tmp;
  const fs::path cfg = WriteCase(tmp.path(), {{"tasks", kTasks}, {"gate", {{"min_task_agreement", 0.99}}}});
  const auto r = RunPtq("quantize --config " + cfg.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto report = nlohmann::json::parse(ReadText(tmp.path() / "q.report.json"));
  std::map<std::string, nlohmann::json> task;
  for (const auto& o : report["outputs"]) task[o["name"].get<std::string>()] = o["task"];
  ASSERT_EQ(task.size(), 4u) << report["outputs"].dump();

  const auto& det = task["prob"];
  EXPECT_EQ(det["type"], "text_detection");
  EXPECT_EQ(det["samples"], kSamples);
  EXPECT_EQ(det["float_boxes"], 2 * kSamples);
  EXPECT_EQ(det["int8_boxes"], 2 * kSamples);
  EXPECT_EQ(det["matched"], 2 * kSamples);
  EXPECT_EQ(det["recall"], 1.0);

  const auto& seg = task["seg"];
  EXPECT_EQ(seg["pixels"], kSamples * 64);
  EXPECT_EQ(seg["pixel_agreement"], 1.0);

  const auto& ctc = task["ctc"];
  EXPECT_EQ(ctc["float_tokens"], 2 * kSamples);
  EXPECT_EQ(ctc["same_sequence"], 1.0);
  EXPECT_EQ(ctc["token_error_rate"], 0.0);

  const auto& cls = task["logits"];
  EXPECT_EQ(cls["rows"], kSamples);
  EXPECT_EQ(cls["top1_agreement"], 1.0);

  EXPECT_EQ(report["gate"]["thresholds"]["min_task_agreement"], 0.99);
  EXPECT_TRUE(report["gate"]["passed"].get<bool>());
  // The terminal table and the HTML page say the same in words.
  EXPECT_NE(r.output.find("ctc: 100.0% same text, token error 0.00%"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("text_detection: 100.0% of 16 float boxes matched, precision 100.0% (16 int8 boxes)"), std::string::npos)
      << r.output;
  const std::string html = ReadText(tmp.path() / "q.report.html");
  EXPECT_NE(html.find("segmentation: 100.0% pixels agree"), std::string::npos);
}

TEST(TaskMetricsCli, PrintConfigFillsEachTasksDefaults) {
  TempDir tmp;
  const auto r = RunPtq("quantize --config " + WriteCase(tmp.path(), {{"tasks", kTasks}}).string() + " --print-config");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto tasks = nlohmann::json::parse(r.output)["validation"]["tasks"];
  EXPECT_EQ(tasks["prob"], nlohmann::json({{"type", "text_detection"}, {"threshold", 0.3}, {"min_size", 3}, {"iou", 0.5}}));
  EXPECT_EQ(tasks["ctc"], nlohmann::json({{"type", "ctc"}, {"blank", 0}, {"axis", -1}}));
  EXPECT_EQ(tasks["logits"], nlohmann::json({{"type", "classification"}}));
}

TEST(TaskMetricsCli, ATaskForAnOutputTheModelDoesNotHaveIsAUsageError) {
  TempDir tmp;
  const fs::path cfg = WriteCase(tmp.path(), {{"tasks", {{"probs", {{"type", "text_detection"}}}}}});
  auto r = RunPtq("quantize --config " + cfg.string() + " --quiet");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("'validation.tasks.probs': the model has no output 'probs' (did you mean 'prob'?)"), std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(tmp.path() / "q.onnx"));
  // A shape that does not fit: segmentation of [N, 8, 8].
  r = RunPtq("quantize --config " + cfg.string() + " --quiet --set 'validation.tasks={\"ctc\": {\"type\": \"segmentation\"}}'");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("'validation.tasks.ctc': segmentation needs [N, classes, H, W] with 2 or more classes; output 'ctc' has shape [4, 8, 8]"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(tmp.path() / "q.onnx"));
}

}  // namespace
}  // namespace ptq
