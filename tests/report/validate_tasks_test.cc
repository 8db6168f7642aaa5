// Tests of task metrics inside Validate: accumulated over batches, attached to the output they name, and
// usage errors for an output the model does not have or whose shape does not fit the task.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "report/validate.h"
#include "runtime/graph.h"
#include "tests/error_of.h"
#include "tests/runtime/model_builder.h"

namespace ptq {
namespace {

using testing::ErrorOf;
using testing::ModelBuilder;

// logits = MatMul(x, W) for x [N, 3].
Graph Linear(const std::vector<float>& w) {
  ModelBuilder b;
  b.Input("x", DataType::kFloat, {-1, 3}).Output("logits", DataType::kFloat, {-1, 3});
  b.Initializer("W", Tensor::FromVector<float>({3, 3}, w));
  b.Node("MatMul", {"x", "W"}, {"logits"}, "mm");
  return GraphFromModel(b.model(), ".", "test model");
}

// Two batches of two one-hot rows: classes 0, 1 | 2, 0.
BatchSource TwoBatches() {
  auto k = std::make_shared<int>(0);
  return [k](std::map<std::string, Tensor>* batch, int64_t* n) {
    if (*k == 2) return false;
    (*batch)["x"] = *k == 0 ? Tensor::FromVector<float>({2, 3}, {1, 0, 0, 0, 1, 0}) : Tensor::FromVector<float>({2, 3}, {0, 0, 1, 1, 0, 0});
    *n = 2;
    ++*k;
    return true;
  };
}

TEST(ValidateTasks, TaskFiguresAccumulateOverBatches) {
  // The "int8" model swaps classes 1 and 2: argmax 0 2 | 1 0 against float's 0 1 | 2 0: 2 of 4 agree.
  const Graph f = Linear({1, 0, 0, 0, 1, 0, 0, 0, 1});
  const Graph q = Linear({1, 0, 0, 0, 0, 1, 0, 1, 0});
  TaskSpecs tasks;
  tasks["logits"].type = TaskType::kClassification;
  const ValidationResult r = Validate(f, q, {}, TwoBatches(), nullptr, false, tasks);
  ASSERT_EQ(r.outputs.size(), 1u);
  ASSERT_TRUE(r.outputs[0].task.has_value());
  EXPECT_EQ(r.outputs[0].task->samples, 4);
  EXPECT_EQ(r.outputs[0].task->rows, 4);
  EXPECT_EQ(r.outputs[0].task->agree, 2);
  // Without tasks, no task figures.
  EXPECT_FALSE(Validate(f, q, {}, TwoBatches(), nullptr, false).outputs[0].task.has_value());
}

TEST(ValidateTasks, AnOutputTheModelDoesNotHaveIsAUsageError) {
  const Graph f = Linear({1, 0, 0, 0, 1, 0, 0, 0, 1});
  TaskSpecs tasks;
  tasks["logit"].type = TaskType::kClassification;
  bool ran = false;
  const BatchSource source = [&](std::map<std::string, Tensor>*, int64_t*) { return ran = true, false; };
  std::string err = ErrorOf([&] { Validate(f, f, {}, source, nullptr, false, tasks); }, ErrorKind::kUsage);
  EXPECT_NE(err.find("'validation.tasks.logit': the model has no output 'logit' (did you mean 'logits'?)"), std::string::npos) << err;
  EXPECT_FALSE(ran);  // found before any batch runs
  tasks.clear();
  tasks["probabilities"].type = TaskType::kClassification;
  err = ErrorOf([&] { Validate(f, f, {}, source, nullptr, false, tasks); }, ErrorKind::kUsage);
  EXPECT_NE(err.find("the model has no output 'probabilities' (its outputs: 'logits')"), std::string::npos) << err;
}

TEST(ValidateTasks, AnOutputWhoseShapeDoesNotFitIsAUsageError) {
  const Graph f = Linear({1, 0, 0, 0, 1, 0, 0, 0, 1});
  TaskSpecs tasks;
  tasks["logits"].type = TaskType::kCtc;
  const std::string err = ErrorOf([&] { Validate(f, f, {}, TwoBatches(), nullptr, false, tasks); }, ErrorKind::kUsage);
  EXPECT_NE(err.find("'validation.tasks.logits': ctc needs [N, T, classes]; output 'logits' has shape [2, 3]"), std::string::npos) << err;
}

}  // namespace
}  // namespace ptq
