// ptq calibrate: runs the calibration pass of a config and writes the calibration table.
#include <cstdio>
#include <iostream>

#include "calibrate/calibration_config.h"
#include "calibrate/sample_reader.h"
#include "cli/args.h"
#include "cli/calibration_stage.h"
#include "cli/commands.h"
#include "cli/config_file.h"
#include "runtime/file_util.h"
#include "runtime/memory_usage.h"
#include "runtime/threading.h"

namespace ptq {

namespace {

constexpr const char* kCalibrateUsage = R"(usage: ptq calibrate --config C [--out TABLE] [--shard K/N] [--set key=value]... [--threads N] [--quiet]

Runs the float model over calibration.data, keeps streaming statistics of every tensor a quantized op
reads or writes (memory does not grow with the number of samples), and writes the calibration table
(JSON): per tensor its histogram, the chosen range, dtype, scale and zero point.
--shard K/N   process every N-th sample starting at K (0 <= K < N); merge the shards' tables with
              ptq merge-stats to get the table of one run over all samples.
--out TABLE   where to write (default: calibration.table, else beside the output model).
--threads N   threads for the model's kernels (default 0: one per core). With N >= 2 the statistics
              are also computed on one background thread, overlapping inference (same table).
)";

void ParseShard(const std::string& s, SampleOptions* o) {
  const size_t slash = s.find('/');
  try {
    if (slash != std::string::npos) {
      o->shard_index = std::stoll(s.substr(0, slash));
      o->shard_count = std::stoll(s.substr(slash + 1));
      if (o->shard_count >= 1 && o->shard_index >= 0 && o->shard_index < o->shard_count) return;
    }
  } catch (const std::exception&) {
  }
  ThrowUsageError("--shard expects K/N with 0 <= K < N, got '", s, "'");
}

}  // namespace

int CalibrateCommand(int argc, char** argv) {
  Args args(argc, argv, 2, {"config", "out", "shard", "set", "threads"}, {"help", "quiet"});
  if (args.Has("help")) {
    std::cout << kCalibrateUsage;
    return 0;
  }
  const ConfigFile config = LoadConfig(args.Require("config"), args.GetAll("set"));
  const CalibrationConfig cal = ParseCalibrationConfig(config.json, config.dir);
  if (cal.data.empty()) ThrowUsageError("'calibration.data' is required for ptq calibrate");
  SetNumThreads(args.GetInt("threads", 0));
  SampleOptions so;
  so.max_samples = cal.max_samples;
  so.batch_size = cal.batch_size;
  if (args.Has("shard")) ParseShard(args.Get("shard"), &so);
  std::string out = args.Get("out", cal.table);
  if (out.empty()) out = DefaultTablePath(config);
  SetMemoryStage("calibration");
  const CalibrationStage stage =
      RunCalibrationStage(config, FloatModel(config.model), cal, FileSamples(cal.data), so, args.Get("shard", ""), args.Has("quiet"));
  WriteFileAtomic(out, stage.table);
  if (!args.Has("quiet")) {
    const double per = stage.samples > 0 ? 1e3 / static_cast<double>(stage.samples) : 0.0;
    std::printf("calibrated %zu tensors on %lld samples in %.3f s (%.4f ms/sample, CPU %.4f ms/sample) -> %s\n",
                stage.tensors, static_cast<long long>(stage.samples), stage.seconds, per * stage.seconds,
                per * stage.cpu_seconds, out.c_str());
  }
  return 0;
}

}  // namespace ptq
