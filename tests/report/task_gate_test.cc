// Tests of validation.gate.min_task_agreement: the gate fails when an output's main task figure is below
// it, names the figure, and the report JSON carries the task figures and the threshold.
#include <gtest/gtest.h>

#include <string>

#include "report/report_json.h"

namespace ptq {
namespace {

// One output "seq" with a CTC task: 7 of 8 samples decoded the same.
ValidationResult CtcResult() {
  ValidationResult r;
  r.samples = 8;
  OutputStats o;
  o.name = "seq";
  const float f[] = {1, 2, 3}, q[] = {1, 2, 3};
  o.error.Add(f, q, 3);
  o.task.emplace();
  o.task->spec.type = TaskType::kCtc;
  o.task->samples = 8;
  o.task->same = 7;
  o.task->edits = 2;
  o.task->float_tokens = 40;
  r.outputs.push_back(o);
  return r;
}

TEST(TaskGate, FailsBelowMinTaskAgreementAndNamesTheFigure) {
  GateConfig gate;
  gate.min_task_agreement = 0.9;
  const std::vector<std::string> failures = GateFailures(CtcResult(), gate);
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0], "output 'seq': ctc same_sequence 0.8750 < min_task_agreement 0.9000");
  gate.min_task_agreement = 0.875;  // reaching the threshold is enough
  EXPECT_TRUE(GateFailures(CtcResult(), gate).empty());
  // Other thresholds alone do not look at the task.
  GateConfig sqnr_only;
  sqnr_only.min_sqnr_db = 10;
  EXPECT_TRUE(GateFailures(CtcResult(), sqnr_only).empty());
}

TEST(TaskGate, TheReportCarriesTheTaskAndTheThreshold) {
  GateConfig gate;
  gate.min_task_agreement = 0.9;
  const nlohmann::json j = ReportJson(CtcResult(), nlohmann::json::object(), nlohmann::json::object(), {}, gate);
  const nlohmann::json& task = j["outputs"][0]["task"];
  EXPECT_EQ(task["type"], "ctc");
  EXPECT_EQ(task["samples"], 8);
  EXPECT_DOUBLE_EQ(task["same_sequence"].get<double>(), 0.875);
  EXPECT_DOUBLE_EQ(task["token_error_rate"].get<double>(), 0.05);  // 2 / 40
  EXPECT_EQ(j["gate"]["thresholds"]["min_task_agreement"], 0.9);
  EXPECT_FALSE(j["gate"]["passed"].get<bool>());
  // An output without a task has no "task" field.
  ValidationResult plain = CtcResult();
  plain.outputs[0].task.reset();
  EXPECT_FALSE(ReportJson(plain, {}, {}, {}, GateConfig())["outputs"][0].contains("task"));
}

}  // namespace
}  // namespace ptq
