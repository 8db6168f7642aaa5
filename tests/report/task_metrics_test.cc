// Tests of the task metrics, int8 against float, on hand-built output tensors whose figures are worked
// out by hand: classification, CTC, text detection and segmentation, batch by batch, and the errors for
// outputs whose shape does not fit the task.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "report/task_metrics.h"
#include "tests/error_of.h"

namespace ptq {
namespace {

using testing::ErrorOf;

TaskStats Stats(TaskType type) {
  TaskStats s;
  s.spec.type = type;
  return s;
}

TEST(TaskMetrics, ClassificationCountsRowsWhoseArgmaxAgrees) {
  TaskStats s = Stats(TaskType::kClassification);
  // Row 0: float 1, int8 1. Row 1: both tie between 0 and 1 -> 0 and 0. Row 2: float 2, int8 1.
  const Tensor f = Tensor::FromVector<float>({3, 4}, {0.1f, 0.7f, 0.2f, 0.0f, 0.5f, 0.5f, 0.0f, 0.0f, 0.2f, 0.3f, 0.4f, 0.1f});
  const Tensor q = Tensor::FromVector<float>({3, 4}, {0.1f, 0.6f, 0.3f, 0.0f, 0.5f, 0.5f, 0.0f, 0.0f, 0.2f, 0.45f, 0.35f, 0.0f});
  AddTaskBatch(&s, "logits", f, q);
  EXPECT_EQ(s.agree, 2);
  EXPECT_EQ(s.rows, 3);
  const nlohmann::json j = TaskJson(s);
  EXPECT_EQ(j["type"], "classification");
  EXPECT_EQ(j["samples"], 3);
  EXPECT_DOUBLE_EQ(j["top1_agreement"].get<double>(), 2.0 / 3.0);
  EXPECT_FALSE(j.contains("top5_agreement"));  // 4 classes: every class is in the top 5
  EXPECT_DOUBLE_EQ(*TaskAgreement(s), 2.0 / 3.0);
}

TEST(TaskMetrics, ClassificationTop5AndPositionsOfASequence) {
  TaskStats s = Stats(TaskType::kClassification);
  // [1, 3, 7]: three positions. Float ranks classes 0..4 best in rows 0 and 1 (7 6 5 4 3 2 1); row 2 ties
  // everywhere, so its top 5 are classes 0..4 as a stable sort gives them. int8 picks 4 (in), 5 (out),
  // 4 (in); none equals float's argmax 0.
  std::vector<float> f, q;
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 7; ++c) {
      f.push_back(r < 2 ? static_cast<float>(7 - c) : 1.0f);
      q.push_back(c == (r == 1 ? 5 : 4) ? 9.0f : 0.0f);
    }
  }
  AddTaskBatch(&s, "tokens", Tensor::FromVector<float>({1, 3, 7}, f), Tensor::FromVector<float>({1, 3, 7}, q));
  const nlohmann::json j = TaskJson(s);
  EXPECT_EQ(j["rows"], 3);
  EXPECT_EQ(j["samples"], 1);
  EXPECT_DOUBLE_EQ(j["top1_agreement"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(j["top5_agreement"].get<double>(), 2.0 / 3.0);
}

// [N, T, C] scores with 1 at the given class of each step.
Tensor Steps(const std::vector<std::vector<int64_t>>& best, int64_t classes) {
  std::vector<float> v;
  for (const auto& sample : best) {
    for (int64_t c : sample) {
      for (int64_t k = 0; k < classes; ++k) v.push_back(k == c ? 1.0f : 0.0f);
    }
  }
  return Tensor::FromVector<float>({static_cast<int64_t>(best.size()), static_cast<int64_t>(best[0].size()), classes}, v);
}

TEST(TaskMetrics, CtcSameSequenceAndTokenErrorRateOverBatches) {
  TaskStats s = Stats(TaskType::kCtc);
  // Sample 0: float 1 1 0 1 2 2 0 3 -> 1 1 2 3; int8 1 0 0 1 2 0 2 3 -> 1 1 2 2 3: one edit.
  AddTaskBatch(&s, "ctc", Steps({{1, 1, 0, 1, 2, 2, 0, 3}}, 4), Steps({{1, 0, 0, 1, 2, 0, 2, 3}}, 4));
  // Sample 1 (a second batch): float 0 2 2 2 0 0 3 3 -> 2 3; int8 0 2 2 0 0 0 3 3 -> 2 3: the same text
  // although step 3 differs.
  AddTaskBatch(&s, "ctc", Steps({{0, 2, 2, 2, 0, 0, 3, 3}}, 4), Steps({{0, 2, 2, 0, 0, 0, 3, 3}}, 4));
  const nlohmann::json j = TaskJson(s);
  EXPECT_EQ(j["type"], "ctc");
  EXPECT_EQ(j["samples"], 2);
  EXPECT_EQ(j["blank"], 0);
  EXPECT_DOUBLE_EQ(j["same_sequence"].get<double>(), 0.5);
  EXPECT_EQ(j["edits"], 1);
  EXPECT_EQ(j["float_tokens"], 6);  // 4 + 2
  EXPECT_DOUBLE_EQ(j["token_error_rate"].get<double>(), 1.0 / 6.0);
}

TEST(TaskMetrics, CtcWithAnotherBlankAndClassesOnAxis1) {
  TaskStats s = Stats(TaskType::kCtc);
  s.spec.blank = 2;
  s.spec.axis = 1;
  // [1, C = 3, T = 4]: float steps 0 0 2 0 -> 0 0 (blank 2 splits the run); int8 steps 0 1 1 0 -> 0 1 0.
  const Tensor f = Tensor::FromVector<float>({1, 3, 4}, {9, 9, 0, 9, 0, 0, 0, 0, 0, 0, 9, 0});
  const Tensor q = Tensor::FromVector<float>({1, 3, 4}, {9, 0, 0, 9, 0, 9, 9, 0, 0, 0, 0, 0});
  AddTaskBatch(&s, "ctc", f, q);
  EXPECT_EQ(s.same, 0);
  EXPECT_EQ(s.edits, 1);  // 0 1 0 -> 0 0: delete the 1
  EXPECT_EQ(s.float_tokens, 2);
}

// Probability maps [N, 1, 8, 8] from pictures: '#' is 0.9, anything else 0.1.
Tensor Maps(const std::vector<std::vector<std::string>>& pictures) {
  std::vector<float> v;
  for (const auto& rows : pictures) {
    for (const auto& r : rows) {
      for (char c : r) v.push_back(c == '#' ? 0.9f : 0.1f);
    }
  }
  return Tensor::FromVector<float>({static_cast<int64_t>(pictures.size()), 1, 8, 8}, v);
}

const std::vector<std::string> kEmpty(8, "........");

TEST(TaskMetrics, TextDetectionMatchesInt8BoxesToFloatBoxes) {
  // Sample 0: float boxes A [1,1,4,4] and B [4,5,7,8]; int8 has B and A shifted two columns right,
  // [3,1,6,4]: IoU(A, shifted A) = 3 / 15 = 0.2 < 0.5, so only B matches.
  // Sample 1: float finds nothing, int8 one box. Totals: float 2, int8 3, matched 1.
  const Tensor f = Maps({{"........", ".###....", ".###....", ".###....", "........", "....###.", "....###.", "....###."}, kEmpty});
  const Tensor q = Maps({{"........", "...###..", "...###..", "...###..", "........", "....###.", "....###.", "....###."},
                         {"###.....", "###.....", "###.....", "........", "........", "........", "........", "........"}});
  TaskStats s = Stats(TaskType::kTextDetection);
  AddTaskBatch(&s, "maps", f, q);
  nlohmann::json j = TaskJson(s);
  EXPECT_EQ(j["type"], "text_detection");
  EXPECT_EQ(j["float_boxes"], 2);
  EXPECT_EQ(j["int8_boxes"], 3);
  EXPECT_EQ(j["matched"], 1);
  EXPECT_DOUBLE_EQ(j["recall"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(j["precision"].get<double>(), 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(*TaskAgreement(s), 0.5);

  // Shifted by one column only, IoU is exactly 0.5 and A matches too.
  const Tensor q1 = Maps({{"........", "..###...", "..###...", "..###...", "........", "....###.", "....###.", "....###."}, kEmpty});
  TaskStats s1 = Stats(TaskType::kTextDetection);
  AddTaskBatch(&s1, "maps", f, q1);
  EXPECT_EQ(s1.matched, 2);
  // [N, H, W] maps are read the same way.
  TaskStats s2 = Stats(TaskType::kTextDetection);
  AddTaskBatch(&s2, "maps", f.Reshaped({2, 8, 8}), q.Reshaped({2, 8, 8}));
  EXPECT_EQ(s2.matched, 1);
  EXPECT_EQ(s2.int8_boxes, 3);
}

TEST(TaskMetrics, TextDetectionWithNoBoxesAnywhereAgreesFully) {
  TaskStats s = Stats(TaskType::kTextDetection);
  AddTaskBatch(&s, "maps", Maps({kEmpty}), Maps({kEmpty}));
  const nlohmann::json j = TaskJson(s);
  EXPECT_EQ(j["float_boxes"], 0);
  EXPECT_DOUBLE_EQ(j["recall"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(j["precision"].get<double>(), 1.0);
}

TEST(TaskMetrics, SegmentationCountsPixelsWhoseClassAgrees) {
  TaskStats s = Stats(TaskType::kSegmentation);
  // [1, 2, 2, 2]: float classes per pixel [[0, 1], [0, 1]]; int8 [[0, 1], [1, 1]]: 3 of 4 agree.
  const Tensor f = Tensor::FromVector<float>({1, 2, 2, 2}, {1, 0, 1, 0, 0, 1, 0, 1});
  const Tensor q = Tensor::FromVector<float>({1, 2, 2, 2}, {1, 0, 0, 0, 0, 1, 1, 1});
  AddTaskBatch(&s, "mask", f, q);
  const nlohmann::json j = TaskJson(s);
  EXPECT_EQ(j["pixels"], 4);
  EXPECT_DOUBLE_EQ(j["pixel_agreement"].get<double>(), 0.75);
}

TEST(TaskMetrics, FiguresAreNullBeforeAnySample) {
  const nlohmann::json j = TaskJson(Stats(TaskType::kCtc));
  EXPECT_EQ(j["samples"], 0);
  EXPECT_TRUE(j["same_sequence"].is_null());
  EXPECT_FALSE(TaskAgreement(Stats(TaskType::kCtc)).has_value());
}

TEST(TaskMetrics, AnOutputWhoseShapeDoesNotFitIsAUsageErrorNamingIt) {
  const Tensor v2 = Tensor::FromVector<float>({2, 5}, std::vector<float>(10, 0.0f));
  TaskStats ctc = Stats(TaskType::kCtc);
  std::string err = ErrorOf([&] { AddTaskBatch(&ctc, "logits", v2, v2); }, ErrorKind::kUsage);
  EXPECT_NE(err.find("'validation.tasks.logits': ctc needs [N, T, classes]; output 'logits' has shape [2, 5]"), std::string::npos) << err;

  const Tensor v3 = Tensor::FromVector<float>({1, 2, 5}, std::vector<float>(10, 0.0f));
  ctc.spec.blank = 5;
  err = ErrorOf([&] { AddTaskBatch(&ctc, "seq", v3, v3); }, ErrorKind::kUsage);
  EXPECT_NE(err.find("more than 5 classes on axis 2 (blank is 5)"), std::string::npos) << err;

  TaskStats det = Stats(TaskType::kTextDetection);
  const Tensor v4 = Tensor::FromVector<float>({1, 2, 1, 5}, std::vector<float>(10, 0.0f));
  err = ErrorOf([&] { AddTaskBatch(&det, "maps", v4, v4); }, ErrorKind::kUsage);
  EXPECT_NE(err.find("text_detection needs [N, 1, H, W] or [N, H, W]; output 'maps' has shape [1, 2, 1, 5]"), std::string::npos) << err;

  TaskStats seg = Stats(TaskType::kSegmentation);
  err = ErrorOf([&] { AddTaskBatch(&seg, "mask", v3, v3); }, ErrorKind::kUsage);
  EXPECT_NE(err.find("segmentation needs [N, classes, H, W]"), std::string::npos) << err;

  TaskStats cls = Stats(TaskType::kClassification);
  const Tensor one = Tensor::FromVector<float>({2, 1}, {0.0f, 1.0f});
  err = ErrorOf([&] { AddTaskBatch(&cls, "p", one, one); }, ErrorKind::kUsage);
  EXPECT_NE(err.find("with 2 or more classes"), std::string::npos) << err;

  const Tensor ints = Tensor::FromVector<int64_t>({2, 3}, {0, 1, 2, 3, 4, 5});
  err = ErrorOf([&] { AddTaskBatch(&cls, "ids", ints, ints); }, ErrorKind::kUsage);
  EXPECT_NE(err.find("classification needs a float output; output 'ids' is int64"), std::string::npos) << err;
}

}  // namespace
}  // namespace ptq
