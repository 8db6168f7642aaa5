// ptq merge-stats: merges the calibration tables of shards into the table of one run.
#include <iostream>

#include "calibrate/calibration_config.h"
#include "calibrate/calibration_table.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/config_file.h"
#include "runtime/file_util.h"
#include "runtime/graph.h"

namespace ptq {

namespace {

constexpr const char* kMergeUsage = R"(usage: ptq merge-stats A.json B.json ... -o TABLE --config C

Merges the calibration tables of shards (ptq calibrate --shard K/N) of the same model and config:
histograms and counts are added exactly, then ranges, scales and zero points are chosen again, so the
result equals the table of one run over all samples.
)";

CalibrationResult ReadTable(const std::string& path, TableProvenance* p) {
  nlohmann::json j = nlohmann::json::parse(ReadFileToString(path, int64_t{1} << 30), nullptr, false);
  if (j.is_discarded()) ThrowInputError(path, ": not valid JSON");
  return CalibrationTableFromJson(j, path, p);
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
  TableProvenance p;
  CalibrationResult merged = ReadTable(args.positional()[0], &p);
  for (size_t i = 1; i < args.positional().size(); ++i) {
    TableProvenance pi;
    const CalibrationResult r = ReadTable(args.positional()[i], &pi);
    MergeCalibrationResults(&merged, p, r, pi, args.positional()[i]);
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
