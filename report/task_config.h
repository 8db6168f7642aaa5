// The config's `validation.tasks`: which model outputs get a task metric (int8 against float) and its settings.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace ptq {

enum class TaskType { kClassification, kCtc, kTextDetection, kSegmentation };

struct TaskSpec {
  TaskType type = TaskType::kClassification;
  // ctc: the blank class, and the axis of the classes in [N, T, C] (1 or 2; -1 and -2 count from the end).
  int64_t blank = 0;
  int64_t axis = -1;
  // text_detection: probability > threshold is text; components smaller than min_size x min_size are
  // dropped; boxes match at IoU >= iou.
  double threshold = 0.3;
  int64_t min_size = 3;
  double iou = 0.5;
};

using TaskSpecs = std::map<std::string, TaskSpec>;  // by model output name

// Parses `tasks` (the value of the config key `path`, "validation.tasks"): an object mapping output names
// to {"type": ..., settings}. Unknown types and keys, wrong types and values out of range are usage
// errors naming the key path.
TaskSpecs ParseTaskSpecs(const nlohmann::json& tasks, const std::string& path);

// "classification", "ctc", "text_detection", "segmentation".
const char* TaskTypeName(TaskType type);

// The spec with every setting of its type filled in (for --print-config).
nlohmann::json TaskSpecJson(const TaskSpec& spec);

}  // namespace ptq
