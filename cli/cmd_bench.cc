// ptq bench: runs a model repeatedly on one set of inputs and prints latency as one JSON line.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "runtime/feeds.h"
#include "runtime/session.h"
#include "runtime/threading.h"

namespace ptq {

namespace {
constexpr const char* kBenchUsage = R"(usage: ptq bench MODEL --inputs DIR [--threads N] [--literal-qdq] [--seconds S] [--warmup W]

Runs MODEL on the inputs in DIR (as for ptq run) W times to warm up (default 3), then repeatedly for
S seconds (default 3, at least 5 runs), and prints one JSON line:
{"model": ..., "median_ms": ..., "min_ms": ..., "runs": ..., "threads": ...}
--threads N: threads for kernels (default 1).
--literal-qdq: time QDQ groups run node by node in float instead of fused on the integer kernels.
--profile: also print, on stderr, the time spent per op type and by the slowest nodes over the timed runs.
)";
}  // namespace

namespace {

constexpr size_t kProfileNodes = 20000;

// The `limit` largest entries of `ms` (summed over `runs` runs) on stderr, per run and as a share.
void PrintProfile(const char* title, const std::map<std::string, double>& ms, size_t limit, size_t runs) {
  std::vector<std::pair<double, std::string>> rows;
  double total = 0;
  for (const auto& kv : ms) {
    rows.push_back({kv.second, kv.first});
    total += kv.second;
  }
  std::sort(rows.rbegin(), rows.rend());
  std::fprintf(stderr, "%s:\n", title);
  for (size_t i = 0; i < rows.size() && i < limit; ++i) {
    std::fprintf(stderr, "  %10.4f ms/run %6.1f%%  %s\n", rows[i].first / static_cast<double>(runs),
                 100.0 * rows[i].first / total, rows[i].second.c_str());
  }
}

}  // namespace

int BenchCommand(int argc, char** argv) {
  Args args(argc, argv, 2, {"inputs", "threads", "seconds", "warmup"}, {"help", "literal-qdq", "profile"});
  if (args.Has("help")) {
    std::cout << kBenchUsage;
    return 0;
  }
  if (args.positional().size() != 1) ThrowUsageError("ptq bench takes one MODEL argument (see ptq bench --help)");
  const int threads = args.GetInt("threads", 1);
  const double seconds = args.GetDouble("seconds", 3.0);
  const int warmup = args.GetInt("warmup", 3);
  if (threads < 1) ThrowUsageError("--threads must be at least 1");
  SetNumThreads(threads);
  SessionOptions::SetDefaultLiteralQdq(args.Has("literal-qdq"));
  const std::string model = args.positional()[0];
  auto graph = std::make_shared<const Graph>(LoadGraph(model));
  Session session(graph);
  const auto feeds = ReadFeedsFolder(*graph, args.Require("inputs"));
  for (int i = 0; i < warmup; ++i) session.Run(feeds);
  using Clock = std::chrono::steady_clock;
  std::vector<double> ms;
  // --profile: the time between consecutive observations is the producing node's time.
  std::map<std::string, double> op_ms;
  std::map<std::string, double> node_ms;  // "op_type name [output shape]"
  Clock::time_point last;
  Observer profiler = [&](const Observation& o) {
    const auto now = Clock::now();
    if (o.node) {
      const double dt = std::chrono::duration<double, std::milli>(now - last).count();
      op_ms[o.node->op_type] += dt;
      node_ms[o.node->op_type + " " + o.node->name + " " + ShapeToString(o.value.shape())] += dt;
    }
    last = Clock::now();
  };
  const bool profile = args.Has("profile");
  const auto end = Clock::now() + std::chrono::duration<double>(seconds);
  while (ms.size() < 5 || Clock::now() < end) {
    const auto t0 = Clock::now();
    last = t0;
    session.Run(feeds, profile ? profiler : Observer());
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    if (ms.size() >= 1000000) break;
  }
  std::sort(ms.begin(), ms.end());
  nlohmann::json out = {{"model", model}, {"median_ms", ms[ms.size() / 2]}, {"min_ms", ms.front()},
                        {"runs", ms.size()}, {"threads", threads}};
  std::cout << out.dump() << "\n";
  if (profile) {
    PrintProfile("per op type", op_ms, op_ms.size(), ms.size());
    PrintProfile("slowest nodes", node_ms, kProfileNodes, ms.size());
  }
  return 0;
}

}  // namespace ptq
