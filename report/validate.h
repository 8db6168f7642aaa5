// Validation: the float and the quantized model run in lock-step on the same batches; per model output
// and per integer tensor (against its float twin) the error statistics the report shows.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "report/error_metrics.h"
#include "report/task_config.h"
#include "report/task_metrics.h"
#include "runtime/graph.h"

namespace ptq {

// Fills `batch` with the next inputs and `samples` with how many samples they hold; false at the end.
using BatchSource = std::function<bool(std::map<std::string, Tensor>* batch, int64_t* samples)>;

struct OutputStats {
  std::string name;
  ErrorMetrics error;        // float outputs of equal shape
  // Outputs the error metrics cannot cover (`compared` false, `reason` says why; the gate names them):
  // an integer or boolean output, compared element for element instead (`equal` of `elements`), or
  // float and int8 outputs that differ in type or shape in some batch (`mismatch`: a data-dependent
  // shape; the gate fails).
  bool compared = true;   // false: `error` holds no meaningful figures
  bool mismatch = false;
  std::string reason;
  int64_t equal = 0, elements = 0;
  bool has_top1 = false;     // labels given and the output is [samples, classes]
  int64_t float_right = 0, int8_right = 0, agree = 0, labelled = 0;
  std::optional<TaskStats> task;  // validation.tasks names this output
};

// An integer tensor of the quantized model and its float twin (the tensor it quantizes).
struct LayerStats {
  std::string tensor;        // float twin's name
  std::string int8_tensor;
  std::string node, op;      // the float model's node that produces the twin ("" for a model input)
  DataType dtype = DataType::kUint8;
  float scale = 1;
  int32_t zero_point = 0;
  float clip_lo = 0, clip_hi = 0;  // the representable range (qmin - zp) * scale .. (qmax - zp) * scale
  ErrorMetrics error;        // dequantized int8 against float
  int64_t clipped = 0, values = 0;
  float hist_lo = 0, hist_hi = 0;  // float values' histogram over [hist_lo, hist_hi] (ends collect the rest)
  std::vector<int64_t> histogram;
  // Who reads the tensor in which form (node names; filled from the rewrite's record, not by Validate):
  // the 8-bit tensor, the float values, or the dequantized 8-bit values in float.
  std::vector<std::string> int8_readers, float_readers, dequantized_readers;
};

struct ValidationResult {
  std::vector<OutputStats> outputs;
  std::vector<LayerStats> layers;  // sorted by SQNR, worst first
  int64_t samples = 0;
};

// Runs both models over every batch of `next`. `twins` maps each integer tensor of the quantized model
// to the float model's tensor it quantizes (the rewrite's RewriteInfo::twins); its scale and zero point
// are read from the QuantizeLinear / QLinearMatMul / QLinearConv that writes it (through ops that only
// move values). `labels` (int64 [samples], may be null) enables top-1 for outputs of shape
// [samples, classes]. With `per_layer` false only the outputs are compared (faster). `tasks` adds task
// metrics to the outputs it names (a usage error, before any batch runs, when the model has no such
// output; see AddTaskBatch for outputs whose shape does not fit).
ValidationResult Validate(const Graph& float_model, const Graph& int8_model,
                          const std::map<std::string, std::string>& twins, const BatchSource& next,
                          const Tensor* labels, bool per_layer, const TaskSpecs& tasks = {});

// The bin of value v in `bins` equal bins over [lo, hi]; values beyond either end (however far, or
// infinite) fall into the end bins. REQUIRES: lo < hi, bins > 0, v not NaN.
int ValueBin(float v, float lo, float hi, int bins);

}  // namespace ptq
