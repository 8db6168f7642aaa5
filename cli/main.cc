// The ptq command: dispatches git-style subcommands and maps errors to exit codes.
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "cli/commands.h"
#include "cli/interrupt.h"
#include "runtime/allocator_tuning.h"
#include "runtime/error.h"
#include "runtime/memory_usage.h"

namespace {

constexpr const char* kUsage = R"(ptq: offline post-training quantization for ONNX models

usage: ptq <command> [options]

commands:
  quantize     calibrate, rewrite, validate and report in one command (the main job)
  run          run a model once on a folder of inputs and write its outputs as .npy
  bench        time a model on a folder of inputs (median and min latency, JSON)
  calibrate    run the float model over calibration data and write the calibration table
  merge-stats  merge the calibration tables of shards into one
  rewrite      write the quantized model from the float model and the calibration table
  compare      the accuracy report for a float model and a quantized one (by ptq or another tool)
  inspect      what a model holds: ops, weights by type, size, opsets, inputs/outputs, integer MAC share

options:
  --help     show this help (also: ptq <command> --help)
  --version  print the version

exit codes: 0 success, 1 usage or config error, 2 bad model or data, or out of memory,
            3 accuracy gate failed, 4 internal error, 130 interrupted (Ctrl-C; 143 for SIGTERM)
)";

struct Command {
  const char* name;
  int (*fn)(int, char**);
};
constexpr Command kCommands[] = {
    {"run", ptq::RunCommand},
    {"bench", ptq::BenchCommand},
    {"calibrate", ptq::CalibrateCommand},
    {"merge-stats", ptq::MergeStatsCommand},
    {"rewrite", ptq::RewriteCommand},
    {"quantize", ptq::QuantizeCommand},
    {"compare", ptq::CompareCommand},
    {"inspect", ptq::InspectCommand},
};

// Runs the command named by argv[1]; returns its exit code, mapping errors to theirs.
int Dispatch(int argc, char** argv) {
  try {
    for (const Command& c : kCommands) {
      if (!std::strcmp(argv[1], c.name)) return c.fn(argc, argv);
    }
    throw ptq::Error(ptq::ErrorKind::kUsage, std::string("unknown command '") + argv[1] + "' (see ptq --help)");
  } catch (const ptq::Error& e) {
    std::cerr << "ptq: error: " << e.what() << "\n";
    return static_cast<int>(e.kind());
  } catch (const std::bad_alloc&) {
    std::cerr << "ptq: error: " << ptq::OutOfMemoryMessage("") << "\n";
    return static_cast<int>(ptq::ErrorKind::kInput);
  } catch (const std::exception& e) {
    std::cerr << "ptq: internal error: " << e.what() << "\n";
    return static_cast<int>(ptq::ErrorKind::kInternal);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "help")) {
    std::cout << kUsage;
    return argc < 2 ? 1 : 0;
  }
  if (!std::strcmp(argv[1], "--version")) {
    std::cout << "ptq " << PTQ_VERSION << "\n";
    return 0;
  }
  ptq::StopCleanlyOnInterrupt();  // before any thread starts
  ptq::TuneAllocatorForRepeatedRuns();
  const int code = Dispatch(argc, argv);
  std::cout.flush();  // the output is part of the work: an interrupt until it is out gives 130
  std::fflush(stdout);
  return ptq::ExitCodeUnlessInterrupted(code);
}
