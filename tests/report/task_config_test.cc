// Tests of `validation.tasks` and `validation.gate.min_task_agreement` in the config: defaults, and one
// usage error per kind of mistake, each naming the key path.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "report/validation_config.h"
#include "tests/error_of.h"

namespace ptq {
namespace {

using nlohmann::json;
using testing::ErrorOf;

ValidationConfig Parse(const json& validation) { return ParseValidationConfig({{"validation", validation}}, "/tmp"); }

std::string UsageError(const json& validation) {
  return ErrorOf([&] { Parse(validation); }, ErrorKind::kUsage);
}

TEST(TaskConfig, EachTypeGetsItsDefaults) {
  const ValidationConfig v = Parse({{"tasks",
                                     {{"logits", {{"type", "classification"}}},
                                      {"softmax_11.tmp_0", {{"type", "ctc"}}},
                                      {"maps", {{"type", "text_detection"}, {"iou", 0.7}}},
                                      {"mask", {{"type", "segmentation"}}}}},
                                    {"gate", {{"min_task_agreement", 0.9}}}});
  ASSERT_EQ(v.tasks.size(), 4u);
  EXPECT_EQ(v.tasks.at("logits").type, TaskType::kClassification);
  const TaskSpec& ctc = v.tasks.at("softmax_11.tmp_0");
  EXPECT_EQ(ctc.type, TaskType::kCtc);
  EXPECT_EQ(ctc.blank, 0);
  EXPECT_EQ(ctc.axis, -1);
  const TaskSpec& det = v.tasks.at("maps");
  EXPECT_EQ(det.type, TaskType::kTextDetection);
  EXPECT_DOUBLE_EQ(det.threshold, 0.3);
  EXPECT_EQ(det.min_size, 3);
  EXPECT_DOUBLE_EQ(det.iou, 0.7);
  EXPECT_EQ(v.tasks.at("mask").type, TaskType::kSegmentation);
  EXPECT_DOUBLE_EQ(*v.gate.min_task_agreement, 0.9);
  EXPECT_TRUE(v.gate.any());
  EXPECT_EQ(TaskSpecJson(det), json({{"type", "text_detection"}, {"threshold", 0.3}, {"min_size", 3}, {"iou", 0.7}}));
}

TEST(TaskConfig, AnUnknownTypeListsTheTypes) {
  const std::string err = UsageError({{"tasks", {{"maps", {{"type", "detection"}}}}}});
  EXPECT_NE(err.find("'validation.tasks.maps.type' is 'detection'; expected one of 'classification', 'ctc', 'text_detection', "
                     "'segmentation'"),
            std::string::npos)
      << err;
  EXPECT_NE(UsageError({{"tasks", {{"maps", json::object()}}}}).find("'validation.tasks.maps.type' is missing"), std::string::npos);
}

TEST(TaskConfig, AKeyTheTypeDoesNotHaveIsUnknown) {
  std::string err = UsageError({{"tasks", {{"logits", {{"type", "classification"}, {"blank", 0}}}}}});
  EXPECT_NE(err.find("unknown key 'validation.tasks.logits.blank'"), std::string::npos) << err;
  err = UsageError({{"tasks", {{"maps", {{"type", "text_detection"}, {"thresold", 0.5}}}}}});
  EXPECT_NE(err.find("unknown key 'validation.tasks.maps.thresold' (did you mean 'validation.tasks.maps.threshold'?)"),
            std::string::npos)
      << err;
  err = UsageError({{"taks", json::object()}});
  EXPECT_NE(err.find("unknown key 'validation.taks' (did you mean 'validation.tasks'?)"), std::string::npos) << err;
}

TEST(TaskConfig, WrongTypesNameTheExpectedType) {
  std::string err = UsageError({{"tasks", json::array()}});
  EXPECT_NE(err.find("'validation.tasks' must be an object mapping model output names to tasks, got array"), std::string::npos) << err;
  err = UsageError({{"tasks", {{"seq", "ctc"}}}});
  EXPECT_NE(err.find("'validation.tasks.seq' must be an object, got string"), std::string::npos) << err;
  err = UsageError({{"tasks", {{"seq", {{"type", "ctc"}, {"blank", "0"}}}}}});
  EXPECT_NE(err.find("'validation.tasks.seq.blank' must be an integer, got string"), std::string::npos) << err;
  err = UsageError({{"tasks", {{"maps", {{"type", "text_detection"}, {"min_size", 2.5}}}}}});
  EXPECT_NE(err.find("'validation.tasks.maps.min_size' must be an integer, got number"), std::string::npos) << err;
  err = UsageError({{"tasks", {{"maps", {{"type", 3}}}}}});
  EXPECT_NE(err.find("'validation.tasks.maps.type' must be a string, got integer"), std::string::npos) << err;
  err = UsageError({{"tasks", {{"logits", {{"type", "classification"}}}}}, {"gate", {{"min_task_agreement", "0.9"}}}});
  EXPECT_NE(err.find("'validation.gate.min_task_agreement' must be a number, got string"), std::string::npos) << err;
}

TEST(TaskConfig, ValuesOutOfRangeAreRefused) {
  std::string err = UsageError({{"tasks", {{"seq", {{"type", "ctc"}, {"axis", 0}}}}}});
  EXPECT_NE(err.find("'validation.tasks.seq.axis' is the axis of the classes in [N, T, C]: 1, 2, -1 or -2, got 0"), std::string::npos) << err;
  err = UsageError({{"tasks", {{"seq", {{"type", "ctc"}, {"blank", -1}}}}}});
  EXPECT_NE(err.find("'validation.tasks.seq.blank' must be at least 0, got -1"), std::string::npos) << err;
  err = UsageError({{"tasks", {{"maps", {{"type", "text_detection"}, {"iou", 1.5}}}}}});
  EXPECT_NE(err.find("'validation.tasks.maps.iou' is an IoU in (0, 1], got 1.5"), std::string::npos) << err;
  err = UsageError({{"tasks", {{"maps", {{"type", "text_detection"}, {"min_size", 0}}}}}});
  EXPECT_NE(err.find("'validation.tasks.maps.min_size' must be at least 1, got 0"), std::string::npos) << err;
  err = UsageError({{"tasks", {{"logits", {{"type", "classification"}}}}}, {"gate", {{"min_task_agreement", 1.5}}}});
  EXPECT_NE(err.find("'validation.gate.min_task_agreement' is a fraction in [0, 1], got 1.5"), std::string::npos) << err;
}

TEST(TaskConfig, AGateOnTaskAgreementNeedsATask) {
  const std::string err = UsageError({{"gate", {{"min_task_agreement", 0.9}}}});
  EXPECT_NE(err.find("'validation.gate.min_task_agreement' is set but 'validation.tasks' names no model output"), std::string::npos)
      << err;
}

}  // namespace
}  // namespace ptq
