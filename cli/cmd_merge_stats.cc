// ptq merge-stats: merges the calibration tables of shards into the table of one run.
#include <iostream>

#include "calibrate/calibration_config.h"
#include "calibrate/calibration_table.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/config_file.h"
#include "runtime/file_util.h"
#include "runtime/graph.h"
#include "runtime/sha256.h"

namespace ptq {

namespace {

constexpr const char* kMergeUsage = R"(usage: ptq merge-stats A.json B.json ... -o TABLE --config C

Merges the calibration tables of shards (ptq calibrate --shard K/N) of the same model and config:
histograms and counts are added exactly, then ranges, scales and zero points are chosen again, so the
result equals the table of one run over all samples.
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
  const std::string model_digest = Sha256Hex(ReadFileToString(config.model, int64_t{2} << 30));
  const std::string config_digest = CalibrationConfigDigest(config);
  const std::vector<std::string>& paths = args.positional();
  TableProvenance p;
  CalibrationResult merged = ReadCalibrationTable(paths[0], &p);
  CheckProvenance(p, paths[0], config, model_digest, config_digest);
  for (size_t i = 1; i < paths.size(); ++i) {
    TableProvenance pi;
    const CalibrationResult r = ReadCalibrationTable(paths[i], &pi);
    CheckProvenance(pi, paths[i], config, model_digest, config_digest);
    MergeCalibrationResults(&merged, p, r, pi, paths[i]);
  }
  const Graph graph = LoadGraph(config.model);
  ChooseQuantization(graph, cal.options, &merged);
  p.shard = "";
  const std::string out = args.Require("out");
  WriteFileAtomic(out, CalibrationTableToJson(merged, p).dump(1) + "\n");
  std::cout << "merged " << args.positional().size() << " tables (" << merged.samples << " samples) -> " << out << "\n";
  return 0;
}

}  // namespace ptq
