// EffectiveConfig: the parsed config sections written back as JSON with every default filled in.
#include "cli/effective_config.h"

#include <filesystem>

#include <onnx/onnx_pb.h>

#include "runtime/model_io.h"

namespace ptq {

nlohmann::json EffectiveConfig(const ConfigFile& config, const CalibrationConfig& cal, const QuantizationOptions& rc,
                               const ValidationConfig& val) {
  namespace fs = std::filesystem;
  const CalibrationOptions& o = cal.options;
  auto dtype = [](DataType t) { return t == DataType::kInt8 ? "int8" : "uint8"; };
  int64_t opset = rc.opset;
  if (opset == 0) {
    onnx::ModelProto m;
    LoadModelProto(config.model, &m);
    for (const auto& i : m.opset_import()) {
      if (i.domain().empty() || i.domain() == "ai.onnx") opset = std::max<int64_t>(13, i.version());
    }
  }
  nlohmann::json overrides = nlohmann::json::object();
  if (config.json.contains("quantization") && config.json["quantization"].contains("overrides")) {
    overrides = config.json["quantization"]["overrides"];
  }
  const fs::path out(config.output);
  nlohmann::json gate = nlohmann::json::object();
  if (val.gate.min_sqnr_db) gate["min_sqnr_db"] = *val.gate.min_sqnr_db;
  if (val.gate.max_top1_drop) gate["max_top1_drop"] = *val.gate.max_top1_drop;
  if (val.gate.min_task_agreement) gate["min_task_agreement"] = *val.gate.min_task_agreement;
  nlohmann::json tasks = nlohmann::json::object();
  for (const auto& [output, spec] : val.tasks) tasks[output] = TaskSpecJson(spec);
  return {
      {"model", config.model},
      {"output", config.output},
      {"output_external_data", ExternalDataModeName(config.output_external_data)},
      {"calibration",
       {{"data", cal.data},
        {"max_samples", cal.max_samples < 0 ? nlohmann::json("all") : nlohmann::json(cal.max_samples)},
        {"batch_size", cal.batch_size},
        {"method", o.method},
        {"percentile", o.percentile},
        {"softmax_output", o.softmax_calibrated ? "calibrated" : "fixed"},
        {"table", cal.table.empty() ? DefaultTablePath(config) : cal.table}}},
      {"quantization",
       {{"format", rc.format == QuantFormat::kQdq ? "qdq" : "qoperator"},
        {"activations", {{"dtype", dtype(rc.activation_dtype)}, {"symmetric", rc.activation_symmetric}, {"reduce_range", rc.reduce_range}}},
        {"weights", {{"dtype", dtype(rc.weight_dtype)}, {"symmetric", rc.weight_symmetric}, {"per_channel", rc.per_channel}}},
        {"op_types", rc.op_types},
        {"attention", rc.attention},
        {"exclude_nodes", rc.exclude_nodes},
        {"overrides", overrides},
        {"opset", opset},
        {"fallback", rc.fallback_auto ? "auto" : "none"},
        {"fallback_budget", rc.fallback_budget},
        {"bias_correction", rc.bias_correction},
        {"cross_layer_equalization", rc.cross_layer_equalization},
        {"smoothquant", rc.smoothquant},
        {"smoothquant_alpha", rc.smoothquant_alpha}}},
      {"validation",
       {{"data", val.data.empty() ? cal.data : val.data},
        {"labels", val.labels.empty() ? nlohmann::json(nullptr) : nlohmann::json(val.labels)},
        {"report", val.report.empty() ? (out.parent_path() / (out.stem().string() + ".report.html")).string() : val.report},
        {"tasks", tasks},
        {"gate", gate}}}};
}

}  // namespace ptq
