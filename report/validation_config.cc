// Parsing of the `validation` config section: data, labels, report path, task metrics and gate thresholds.
#include "report/validation_config.h"

#include <filesystem>

#include "runtime/error.h"
#include "runtime/file_util.h"
#include "runtime/json_fields.h"

namespace ptq {
namespace {

std::string Resolve(const std::string& dir, const std::string& p) { return ResolveConfigPath(dir, p); }

}  // namespace

ValidationConfig ParseValidationConfig(const nlohmann::json& config, const std::string& config_dir) {
  ValidationConfig v;
  if (!config.contains("validation")) return v;
  JsonSection s(config.at("validation"), "validation", {"data", "labels", "report", "tasks", "gate"});
  v.data = Resolve(config_dir, s.GetString("data", ""));
  v.labels = Resolve(config_dir, s.GetString("labels", ""));
  v.report = Resolve(config_dir, s.GetString("report", ""));
  if (!v.report.empty()) {
    const std::string ext = std::filesystem::path(v.report).extension().string();
    if (ext != ".html" && ext != ".json" && ext != ".md") {
      ThrowUsageError("'validation.report' must end in .html, .json or .md (it picks the format), got '", v.report, "'");
    }
  }
  if (s.Has("tasks")) v.tasks = ParseTaskSpecs(s.Get("tasks"), s.KeyPath("tasks"));
  if (s.Has("gate")) {
    JsonSection g(s.Get("gate"), "validation.gate", {"min_sqnr_db", "max_top1_drop", "min_task_agreement"});
    if (g.Has("min_sqnr_db")) v.gate.min_sqnr_db = g.GetNumber("min_sqnr_db", 0);
    if (g.Has("max_top1_drop")) {
      v.gate.max_top1_drop = g.GetNumber("max_top1_drop", 0);
      if (*v.gate.max_top1_drop < 0 || *v.gate.max_top1_drop > 1) {
        ThrowUsageError("'validation.gate.max_top1_drop' is a fraction in [0, 1], got ", *v.gate.max_top1_drop);
      }
    }
    if (g.Has("min_task_agreement")) {
      v.gate.min_task_agreement = g.GetNumber("min_task_agreement", 0);
      if (*v.gate.min_task_agreement < 0 || *v.gate.min_task_agreement > 1) {
        ThrowUsageError("'validation.gate.min_task_agreement' is a fraction in [0, 1], got ", *v.gate.min_task_agreement);
      }
      if (v.tasks.empty()) {
        ThrowUsageError("'validation.gate.min_task_agreement' is set but 'validation.tasks' names no model output to measure");
      }
    }
  }
  return v;
}

}  // namespace ptq
