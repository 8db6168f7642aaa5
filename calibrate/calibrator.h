// The streaming calibration pass: runs the float model over the samples, histograms every tensor a
// quantized op reads or writes, and turns the histograms into ranges, scales and zero points.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "calibrate/histogram.h"
#include "calibrate/sample_reader.h"
#include "runtime/graph.h"

namespace ptq {

enum class TensorRole { kActivation, kWeight, kSoftmaxOutput };
std::string TensorRoleName(TensorRole role);

struct CalibrationOptions {
  std::string method = "minmax";                  // minmax, percentile, entropy, mse
  double percentile = 99.999;
  bool softmax_calibrated = true;                 // false: the fixed scale 1/256 (ONNX Runtime's choice)
  DataType activation_dtype = DataType::kUint8;
  bool activation_symmetric = false;
  bool reduce_range = false;
  DataType weight_dtype = DataType::kInt8;
  bool weight_symmetric = true;
  bool per_channel = true;
  std::vector<std::string> op_types = {"MatMul", "Gemm", "Conv"};
  bool attention = true;
};

// One calibrated tensor.
struct CalibratedTensor {
  TensorRole role = TensorRole::kActivation;
  Histogram histogram;            // activations and softmax outputs (weights: the values of the weight)
  Shape observed_shape;           // the largest shape seen, dimension by dimension (see MergeObservedShape)
  DataType dtype = DataType::kUint8;
  float range_min = 0, range_max = 0;
  int64_t axis = -1;              // weights per channel: the channel axis; -1 per tensor
  std::vector<float> scales;      // one per channel, or one
  std::vector<int32_t> zero_points;
};

struct CalibrationResult {
  std::map<std::string, CalibratedTensor> tensors;
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
// number of samples). `progress`, when given, is called after each batch with (samples done, total).
// An exception from the session, the reader or the statistics is rethrown after any background thread
// has been joined. The result is byte-identical with and without `collect.background`.
CalibrationResult CollectStatistics(const Graph& graph, SampleReader& samples, const CalibrationOptions& options,
                                    const std::function<void(int64_t, int64_t)>& progress = nullptr,
                                    const CollectOptions& collect = CollectOptions());

// Fills ranges, scales and zero points of every tensor from its histogram (activations) or values
// (weights), through the range method and quant_math.h. Deterministic: same histograms, same result.
void ChooseQuantization(const Graph& graph, const CalibrationOptions& options, CalibrationResult* result);

}  // namespace ptq
