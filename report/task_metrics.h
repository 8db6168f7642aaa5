// Task metrics of one model output, int8 against float, accumulated batch by batch: what quantization did
// to the task (classification, CTC text recognition, text detection, segmentation) rather than to values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "report/task_config.h"
#include "runtime/tensor.h"

namespace ptq {

// Running counts; only counts are kept, never the outputs.
struct TaskStats {
  TaskSpec spec;
  int64_t samples = 0;
  // classification (rows: all positions but the class axis) and segmentation (rows: pixels): rows whose
  // int8 argmax equals the float one; top5: rows whose int8 argmax is among float's 5 best classes.
  int64_t rows = 0, agree = 0, top5 = 0, classes = 0;
  // ctc: samples whose int8 decode equals the float one; edit distances int8 -> float; float tokens.
  int64_t same = 0, edits = 0, float_tokens = 0;
  // text_detection
  int64_t float_boxes = 0, int8_boxes = 0, matched = 0;
};

// Adds one batch of the output `output`: float values f and int8-model values q of one shape, samples on
// axis 0. Throws a usage error naming validation.tasks.<output> when f is not float or its shape does not
// fit the task (classification [N, ..., C]; ctc [N, T, C]; text_detection [N, 1, H, W] or [N, H, W];
// segmentation [N, C, H, W]; C >= 2).
void AddTaskBatch(TaskStats* stats, const std::string& output, const Tensor& f, const Tensor& q);

// The task's main agreement figure, a fraction: top-1 agreement, the share of samples decoded to the same
// sequence, the recall of float boxes, pixel agreement. None before any sample.
std::optional<double> TaskAgreement(const TaskStats& stats);
// Its name in the report: "top1_agreement", "same_sequence", "recall", "pixel_agreement".
const char* TaskAgreementName(TaskType type);

// {"type", "samples", figures...} as report/README.md lists them; figures are null before any sample.
nlohmann::json TaskJson(const TaskStats& stats);

}  // namespace ptq
