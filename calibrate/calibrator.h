// The streaming calibration pass: runs the float model over the samples, histograms every tensor a
// quantized op reads or writes, and turns the histograms into ranges, scales and zero points.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "calibrate/histogram.h"
#include "calibrate/range_method.h"
#include "calibrate/sample_source.h"
#include "runtime/graph.h"
#include "runtime/quant_table.h"
#include "runtime/quantization_options.h"

namespace ptq {

struct CalibrationOptions {
  std::string method = kDefaultRangeMethod;       // minmax, percentile, entropy, mse
  double percentile = 99.999;
  bool softmax_calibrated = true;                 // false: the fixed scale 1/256 (ONNX Runtime's choice)
  QuantizationOptions quant;                      // the config's `quantization` section
};

// One calibrated tensor: its quantization (TensorQuant: role, dtype, scales, zero points, axis, the
// largest observed shape) and what it was chosen from.
struct CalibratedTensor : TensorQuant {
  Histogram histogram;            // activations and softmax outputs (weights: the values of the weight)
  float range_min = 0, range_max = 0;
};

struct CalibrationResult {
  std::map<std::string, CalibratedTensor> tensors;
  // Every tensor the run produced (node outputs and graph inputs, any element type) with its type and
  // largest shape, for opset conversion and shape inference of exports whose shapes static inference
  // cannot find (a Softmax may read a tensor no quantized op touches).
  std::map<std::string, ObservedTensor> observed;
  // quantization.smoothquant: the factors the float model was smoothed with before this calibration
  // (the table's 'smoothing'; the tensors above are those of the smoothed model).
  SmoothingFactorMap smoothing;
  // quantization.cross_layer_equalization: calibration ran on the equalized model (the table's
  // 'cross_layer_equalization'; the rewrite equalizes when the table says so).
  bool equalized = false;
  int64_t samples = 0;
};

// Which tensors get statistics: the inputs and outputs of nodes whose op type is in op_types (their
// constant weight input as a weight), and with `attention` the Q·Kᵀ and P·V MatMuls' inputs and outputs
// and the attention Softmax outputs (role kSoftmaxOutput).
std::map<std::string, TensorRole> SelectTensors(const Graph& graph, const CalibrationOptions& options);

// Folds a newly seen shape into the recorded one: the dimension-wise maximum (same rank), so the
// record does not depend on batch order or on how samples were split into shards.
void MergeObservedShape(Shape* shape, const Shape& seen);

// How CollectStatistics runs; none of this changes the result (histograms are order-independent).
struct CollectOptions {
  // false: the histograms are updated inline, on the calling thread, as each tensor is produced.
  // true: observed tensors go to one background thread (StatsWorker, stats_worker.h), so statistics
  // overlap inference; the tensors it has not folded yet hold at most `queue_bytes` of memory.
  bool background = false;
  size_t queue_bytes = size_t{64} << 20;
};

// Runs the model over every batch of `samples`, accumulating histograms (memory independent of the
// number of samples) and the observed shape of every tensor. `progress`, when given, is called after each batch with (samples done, total).
// An exception from the session, the reader or the statistics is rethrown after any background thread
// has been joined. The result is byte-identical with and without `collect.background`.
CalibrationResult CollectStatistics(const Graph& graph, SampleSource& samples, const CalibrationOptions& options,
                                    const std::function<void(int64_t, int64_t)>& progress = nullptr,
                                    const CollectOptions& collect = CollectOptions());

// Fills ranges, scales and zero points of every tensor from its histogram (activations) or values
// (weights), through the range method and quant_math.h; a pooled summary (the output of
// GlobalAveragePool, GlobalMaxPool, ReduceMean or ReduceMax, or a rearrangement of it) takes the
// min/max range whatever the method. Deterministic: same histograms, same result.
void ChooseQuantization(const Graph& graph, const CalibrationOptions& options, CalibrationResult* result);

}  // namespace ptq
