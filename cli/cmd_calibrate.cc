// ptq calibrate: runs the calibration pass of a config and writes the calibration table.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "calibrate/calibration_config.h"
#include "calibrate/calibration_table.h"
#include "calibrate/calibration_warnings.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/config_file.h"
#include "runtime/file_util.h"
#include "runtime/sha256.h"
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
  if (out.empty()) {
    namespace fs = std::filesystem;
    out = (fs::path(config.output).parent_path() / (fs::path(config.output).stem().string() + ".calib.json")).string();
  }
  const Graph graph = LoadGraph(config.model);
  SampleReader reader = SampleReader::Open(graph, cal.data, so);
  const bool show = !args.Has("quiet") && ::isatty(2);
  const auto t0 = std::chrono::steady_clock::now();
  auto progress = [&](int64_t done, int64_t total) {
    if (!show) return;
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double rate = s > 0 ? static_cast<double>(done) / s : 0.0;
    std::fprintf(stderr, "\rcalibrating: %lld/%lld samples, %.1f samples/s, ETA %.0f s   ", static_cast<long long>(done),
                 static_cast<long long>(total), rate, rate > 0 ? static_cast<double>(total - done) / rate : 0.0);
  };
  CalibrationResult result = CollectStatistics(graph, reader, cal.options, progress);
  const double pass_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (show) std::fprintf(stderr, "\n");
  ChooseQuantization(graph, cal.options, &result);
  if (!args.Has("quiet")) {
    for (const std::string& w : reader.warnings()) std::cerr << "ptq: warning: " << w << "\n";
    for (const std::string& w : CalibrationWarnings(result)) std::cerr << "ptq: warning: " << w << "\n";
  }
  TableProvenance p;
  p.model_digest = Sha256Hex(ReadFileToString(config.model, int64_t{2} << 30));
  nlohmann::json relevant = {{"calibration", config.json.value("calibration", nlohmann::json::object())},
                             {"quantization", config.json.value("quantization", nlohmann::json::object())}};
  relevant["calibration"].erase("table");
  p.config_digest = Sha256Hex(relevant.dump());
  p.method = cal.options.method;
  p.percentile = cal.options.percentile;
  p.shard = args.Get("shard", "");
  WriteFileAtomic(out, CalibrationTableToJson(result, p).dump(1) + "\n");
  if (!args.Has("quiet")) {
    std::printf("calibrated %zu tensors on %lld samples in %.3f s (%.4f ms/sample) -> %s\n", result.tensors.size(),
                static_cast<long long>(result.samples), pass_s,
                result.samples > 0 ? 1e3 * pass_s / static_cast<double>(result.samples) : 0.0, out.c_str());
  }
  return 0;
}

}  // namespace ptq
