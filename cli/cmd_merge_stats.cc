// ptq merge-stats: merges the calibration tables of shards into the table of one run.
#include <cinttypes>
#include <cstdio>
#include <iostream>
#include <map>

#include "calibrate/calibration_config.h"
#include "calibrate/calibration_table.h"
#include "calibrate/channel_means.h"
#include "calibrate/sample_reader.h"
#include "cli/args.h"
#include "cli/auto_range_method.h"
#include "cli/commands.h"
#include "cli/config_file.h"
#include "cli/prepared_model.h"
#include "runtime/file_util.h"
#include "runtime/graph.h"
#include "runtime/model_cleanup.h"
#include "runtime/sha256.h"

namespace ptq {

namespace {

constexpr const char* kMergeUsage = R"(usage: ptq merge-stats A.json B.json ... -o TABLE --config C

Merges the calibration tables of shards (ptq calibrate --shard K/N) of the same model and config:
histograms and counts are added exactly, then ranges, scales and zero points are chosen again, so the
result equals the table of one run over all samples. Every shard 0/N .. N-1/N must be given, once.
With quantization.bias_correction on (the default), the float model then runs once over all of
calibration.data to measure the channel means with the merged parameters (no histograms); set it
false to merge without the data.
)";

// Refuses a shard made for another model or with another calibration config than `config`'s.
void CheckProvenance(const TableProvenance& p, const std::string& path, const ConfigFile& config,
                     const std::string& model_digest, const std::string& config_digest) {
  if (p.model_digest != model_digest) {
    ThrowInputError(path, ": this table was made for another model (its model_sha256 ", p.model_digest,
                    " differs from ", config.model, "'s ", model_digest, ")");
  }
  if (p.config_digest != config_digest) {
    ThrowInputError(path, ": this table was calibrated with a different config (its config_sha256 ", p.config_digest,
                    " differs from the calibration and quantization sections of the given config, ", config_digest,
                    ")");
  }
}

// The tables must be the shards 0/N .. N-1/N of one split, each once: a shard given twice, a missing
// one or a table of all samples (no --shard) would count samples twice or leave some out, silently.
void CheckShardsCoverTheData(const std::vector<std::string>& paths, const std::vector<std::string>& shards) {
  std::map<int64_t, std::string> seen;
  int64_t n = -1;
  std::string first_n_path;
  for (size_t i = 0; i < paths.size(); ++i) {
    int64_t k = -1, count = -1;
    char rest = 0;
    if (std::sscanf(shards[i].c_str(), "%" SCNd64 "/%" SCNd64 "%c", &k, &count, &rest) != 2 || count < 1 || k < 0 ||
        k >= count) {
      ThrowInputError(paths[i], ": this table covers all samples (shard '", shards[i],
                      "'), not one shard of them (ptq calibrate --shard K/N): merging it would count samples twice");
    }
    if (n < 0) {
      n = count;
      first_n_path = paths[i];
    } else if (count != n) {
      ThrowInputError(paths[i], ": shard ", shards[i], " is of another split than ", first_n_path, "'s (", n, " shards)");
    }
    const auto [it, fresh] = seen.emplace(k, paths[i]);
    if (!fresh) ThrowInputError(paths[i], ": shard ", shards[i], " is given twice (also ", it->second, ")");
  }
  std::string missing;
  for (int64_t k = 0; k < n; ++k) {
    if (!seen.count(k)) missing += (missing.empty() ? "" : ", ") + std::to_string(k) + "/" + std::to_string(n);
  }
  if (!missing.empty()) ThrowInputError("merge-stats: shard(s) ", missing, " missing: the merged table would leave their samples out");
}

}  // namespace

int MergeStatsCommand(int argc, char** argv) {
  // -o is accepted as --o's short form.
  for (int i = 2; i < argc; ++i) {
    if (std::string(argv[i]) == "-o") argv[i] = const_cast<char*>("--out");
  }
  Args args(argc, argv, 2, {"out", "config", "set"}, {"help"});
  if (args.Has("help")) {
    std::cout << kMergeUsage;
    return 0;
  }
  if (args.positional().size() < 2) ThrowUsageError("ptq merge-stats needs at least two tables (see --help)");
  const ConfigFile config = LoadConfig(args.Require("config"), args.GetAll("set"));
  const CalibrationConfig cal = ParseCalibrationConfig(config.json, config.dir);
  const std::string model_digest = Sha256FileHex(config.model);
  const std::string config_digest = CalibrationConfigDigest(config);
  const std::vector<std::string>& paths = args.positional();
  TableProvenance p;
  CalibrationResult merged = ReadCalibrationTable(paths[0], &p);
  CheckProvenance(p, paths[0], config, model_digest, config_digest);
  std::vector<std::string> shards = {p.shard};
  for (size_t i = 1; i < paths.size(); ++i) {
    TableProvenance pi;
    const CalibrationResult r = ReadCalibrationTable(paths[i], &pi);
    CheckProvenance(pi, paths[i], config, model_digest, config_digest);
    shards.push_back(pi.shard);
    MergeCalibrationResults(&merged, p, r, pi, paths[i]);
  }
  CheckShardsCoverTheData(paths, shards);
  const FloatModel model(config.model);
  const Graph graph = LoadPreparedGraph(model, merged.equalized, merged.smoothing);  // the model the shards saw
  SampleOptions so;  // all samples, as one run reads them
  so.batch_size = cal.batch_size;
  so.max_samples = cal.max_samples;
  if (cal.options.method == kAutoRangeMethod) {
    ChooseRangeMethod(model, cal, graph, FileSamples(cal.data), so, &merged);
  } else {
    ChooseQuantization(graph, cal.options, &merged);
  }
  if (cal.options.quant.bias_correction) {
    if (cal.data.empty()) ThrowUsageError("'calibration.data' is required to merge with quantization.bias_correction on");
    // The shards' channel means were measured with their own parameters: measured again with the merged
    // ones, in one float pass over all samples (no histograms), so the table is that of one run.
    SampleReader reader = SampleReader::Open(graph, cal.data, so);
    CollectChannelMeans(graph, reader, cal.options, &merged);
  }
  p.shard = "";
  const std::string out = args.Require("out");
  WriteFileAtomic(out, CalibrationTableToJson(merged, p).dump(1) + "\n");
  std::cout << "merged " << args.positional().size() << " tables (" << merged.samples << " samples) -> " << out << "\n";
  return 0;
}

}  // namespace ptq
