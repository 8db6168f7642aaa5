// Parsing of `validation.tasks`: one checked object per output, keys allowed by its type.
#include "report/task_config.h"

#include <vector>

#include "runtime/error.h"
#include "runtime/json_fields.h"

namespace ptq {
namespace {

const std::vector<std::string> kTypes = {"classification", "ctc", "text_detection", "segmentation"};

TaskType TypeOf(const std::string& name) {
  if (name == "ctc") return TaskType::kCtc;
  if (name == "text_detection") return TaskType::kTextDetection;
  if (name == "segmentation") return TaskType::kSegmentation;
  return TaskType::kClassification;
}

std::vector<std::string> KeysOf(TaskType type) {
  switch (type) {
    case TaskType::kCtc: return {"type", "blank", "axis"};
    case TaskType::kTextDetection: return {"type", "threshold", "min_size", "iou"};
    default: return {"type"};
  }
}

TaskSpec ParseOne(const nlohmann::json& value, const std::string& path) {
  // The type decides which keys are valid, so it is read before the keys are checked.
  if (!value.is_object()) ThrowUsageError("'", path, "' must be an object, got ", JsonTypeName(value));
  if (!value.contains("type") || value.at("type").is_null()) {
    ThrowUsageError("'", path, ".type' is missing: one of 'classification', 'ctc', 'text_detection', 'segmentation'");
  }
  const std::string type = JsonSection(value, path, {"type", "blank", "axis", "threshold", "min_size", "iou"})
                               .GetChoice("type", "", kTypes);
  TaskSpec spec;
  spec.type = TypeOf(type);
  JsonSection s(value, path, KeysOf(spec.type));
  if (spec.type == TaskType::kCtc) {
    spec.blank = s.GetInt("blank", 0, 0);
    spec.axis = s.GetInt("axis", -1, -2);
    if (spec.axis == 0) ThrowUsageError("'", s.KeyPath("axis"), "' is the axis of the classes in [N, T, C]: 1, 2, -1 or -2, got 0");
    if (spec.axis > 2) ThrowUsageError("'", s.KeyPath("axis"), "' is the axis of the classes in [N, T, C]: 1, 2, -1 or -2, got ", spec.axis);
  }
  if (spec.type == TaskType::kTextDetection) {
    spec.threshold = s.GetNumber("threshold", 0.3);
    spec.min_size = s.GetInt("min_size", 3, 1);
    spec.iou = s.GetNumber("iou", 0.5);
    if (!(spec.iou > 0 && spec.iou <= 1)) ThrowUsageError("'", s.KeyPath("iou"), "' is an IoU in (0, 1], got ", spec.iou);
  }
  return spec;
}

}  // namespace

TaskSpecs ParseTaskSpecs(const nlohmann::json& tasks, const std::string& path) {
  if (!tasks.is_object()) {
    ThrowUsageError("'", path, "' must be an object mapping model output names to tasks, got ", JsonTypeName(tasks));
  }
  TaskSpecs specs;
  for (const auto& item : tasks.items()) specs[item.key()] = ParseOne(item.value(), path + "." + item.key());
  return specs;
}

const char* TaskTypeName(TaskType type) {
  switch (type) {
    case TaskType::kCtc: return "ctc";
    case TaskType::kTextDetection: return "text_detection";
    case TaskType::kSegmentation: return "segmentation";
    default: return "classification";
  }
}

nlohmann::json TaskSpecJson(const TaskSpec& spec) {
  nlohmann::json j = {{"type", TaskTypeName(spec.type)}};
  if (spec.type == TaskType::kCtc) {
    j["blank"] = spec.blank;
    j["axis"] = spec.axis;
  }
  if (spec.type == TaskType::kTextDetection) {
    j["threshold"] = spec.threshold;
    j["min_size"] = spec.min_size;
    j["iou"] = spec.iou;
  }
  return j;
}

}  // namespace ptq
