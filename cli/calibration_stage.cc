// RunCalibrationStage: the streaming pass with progress, the range choice, warnings, provenance.
#include "cli/calibration_stage.h"

#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <set>

#include "calibrate/calibration_table.h"
#include "calibrate/calibration_warnings.h"
#include "calibrate/channel_absmax.h"
#include "calibrate/channel_means.h"
#include "cli/prepared_model.h"
#include "rewrite/smooth_matmul_inputs.h"
#include "runtime/file_util.h"
#include "runtime/model_cleanup.h"
#include "runtime/sha256.h"
#include "runtime/threading.h"

namespace ptq {
namespace {

double ProcessCpuSeconds() {
  timespec t{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// quantization.smoothquant: a first pass over the samples for each candidate activation's channel
// maxima in `p` (cleaned and equalized), then the factors (SmoothingFactors). Empty when smoothquant is
// off or MatMul is not quantized.
SmoothingFactorMap SmoothQuantFactors(const PreparedModel& p, const FloatModel& model, const CalibrationConfig& cal,
                                      const SampleSourceFactory& samples, const SampleOptions& options, bool quiet) {
  const QuantizationOptions& q = cal.options.quant;
  if (!q.smoothquant || !q.quantizes("MatMul")) return {};
  std::set<std::string> tensors;
  for (const auto& [x, readers] : SmoothingCandidates(p.model)) tensors.insert(x);
  if (tensors.empty()) return {};
  if (!quiet) std::cerr << "ptq: smoothquant: measuring the channel maxima of " << tensors.size() << " MatMul input(s)\n";
  std::map<std::string, std::vector<float>> absmax;
  {
    const Graph graph = GraphFromModel(p.model, p.dir, model.path());
    const std::unique_ptr<SampleSource> reader = samples(graph, options);
    absmax = CollectChannelAbsMax(graph, *reader, tensors);
  }
  return SmoothingFactors(p.model, p.dir, absmax, q.smoothquant_alpha);
}

}  // namespace

CalibrationStage RunCalibrationStage(const ConfigFile& config, const FloatModel& model, const CalibrationConfig& cal,
                                     const SampleSourceFactory& samples, const SampleOptions& options, const std::string& shard,
                                     bool quiet) {
  // The graph the rewrite will see: cleaned, equalized and smoothed as the config asks (prepared once).
  const bool equalize = cal.options.quant.cross_layer_equalization;
  SmoothingFactorMap smoothing;
  const Graph graph = [&] {
    PreparedModel p = PrepareFloatModel(model, equalize, {});
    smoothing = SmoothQuantFactors(p, model, cal, samples, options, quiet);
    if (!smoothing.empty()) ApplySmoothing(&p.model, p.dir, smoothing);
    return GraphFromModel(std::move(p.model), p.dir, model.path());
  }();
  const std::unique_ptr<SampleSource> reader = samples(graph, options);
  const bool show = !quiet && ::isatty(2);
  const auto t0 = std::chrono::steady_clock::now();
  const double cpu0 = ProcessCpuSeconds();
  auto progress = [&](int64_t done, int64_t total) {
    if (!show) return;
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double rate = s > 0 ? static_cast<double>(done) / s : 0.0;
    if (total < 0) {  // data from a caller that did not say how much
      std::fprintf(stderr, "\rcalibrating: %lld samples, %.1f samples/s   ", static_cast<long long>(done), rate);
      return;
    }
    std::fprintf(stderr, "\rcalibrating: %lld/%lld samples, %.1f samples/s, ETA %.0f s   ", static_cast<long long>(done),
                 static_cast<long long>(total), rate, rate > 0 ? static_cast<double>(total - done) / rate : 0.0);
  };
  CollectOptions collect;
  const int threads = NumThreads();
  collect.background = threads >= 2;                 // one thread: everything inline, on this thread
  if (collect.background) SetNumThreads(threads - 1);  // the statistics thread takes one of the N
  CalibrationResult result = CollectStatistics(graph, *reader, cal.options, progress, collect);
  if (collect.background) SetNumThreads(threads);
  CalibrationStage stage;
  stage.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  stage.cpu_seconds = ProcessCpuSeconds() - cpu0;
  if (show) std::fprintf(stderr, "\n");
  result.smoothing = smoothing;
  result.equalized = equalize;
  if (cal.options.method == kAutoRangeMethod) {
    stage.method_choice = ChooseRangeMethod(model, cal, graph, samples, options, &result);
    if (!quiet) {
      std::cerr << "ptq: calibration method auto: " << stage.method_choice.chosen << " (worst output SQNR on "
                << stage.method_choice.samples << " calibration samples:";
      for (const auto& [m, db] : stage.method_choice.scores) std::cerr << " " << m << " " << db << " dB";
      std::cerr << ")\n";
    }
  } else {
    ChooseQuantization(graph, cal.options, &result);
  }
  if (cal.options.quant.bias_correction && shard.empty()) {
    // Bias correction's channel means need the chosen parameters: a second pass over the same samples.
    // (A shard's parameters are not final: ptq merge-stats measures the means with the merged ones.)
    if (!quiet) std::cerr << "ptq: bias correction: measuring channel means (a second pass over the samples)\n";
    const std::unique_ptr<SampleSource> again = samples(graph, options);
    CollectChannelMeans(graph, *again, cal.options, &result);
  }
  if (!quiet) {
    for (const std::string& w : reader->warnings()) std::cerr << "ptq: warning: " << w << "\n";
    for (const std::string& w : CalibrationWarnings(result)) std::cerr << "ptq: warning: " << w << "\n";
  }
  TableProvenance p;
  p.model_digest = Sha256FileHex(model.path());
  p.config_digest = CalibrationConfigDigest(config);
  p.method = cal.options.method;
  p.percentile = cal.options.percentile;
  p.shard = shard;
  stage.table = CalibrationTableToJson(result, p).dump(1) + "\n";
  stage.model_digest = p.model_digest;
  stage.samples = result.samples;
  stage.tensors = result.tensors.size();
  return stage;
}

}  // namespace ptq
