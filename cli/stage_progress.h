// The stage lines of `ptq quantize` ("[k/4] ...") and the peak resident memory of each stage.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace ptq {

class StageProgress {
 public:
  explicit StageProgress(bool quiet) : quiet_(quiet) {}

  // Ends the current stage (see End), gives freed memory back to the system, starts a new peak and
  // prints "[k/4] <line>" (unless quiet). `name` names the stage in memory figures and out-of-memory
  // errors ("calibration", "rewrite", ...).
  void Start(int k, const std::string& name, const std::string& line);
  // Ends the current stage: records its peak resident memory and prints
  // "ptq: memory: <name>: peak RSS 1.23 GB" (unless quiet).
  void End();

  // {"<stage>": {"peak_rss_bytes": n}, ...} for the stages ended so far, and "per_stage": false when the
  // system refused to start a new peak (each figure is then the process's peak so far).
  nlohmann::json MemoryJson() const;

 private:
  bool quiet_;
  bool per_stage_ = true;  // every peak was reset at its stage's start
  std::string current_;
  std::vector<std::pair<std::string, int64_t>> peaks_;
};

}  // namespace ptq
