// The stage lines of `ptq quantize` ("[k/4] ...") and the peak resident memory of each stage (on stderr
// only: the outputs stay the same bytes for the same inputs).
#pragma once

#include <string>

namespace ptq {

class StageProgress {
 public:
  explicit StageProgress(bool quiet) : quiet_(quiet) {}

  // Ends the current stage (see End), gives freed memory back to the system, starts a new peak and
  // prints "[k/4] <line>" (unless quiet). `name` names the stage in memory figures and out-of-memory
  // errors ("calibration", "rewrite", ...).
  void Start(int k, const std::string& name, const std::string& line);
  // Ends the current stage: prints "ptq: memory: <name>: peak RSS 1.23 GB" (unless quiet), with
  // " (the process's peak so far)" where the system refused to start a new peak.
  void End();

 private:
  bool quiet_;
  bool per_stage_ = true;  // the current stage's peak was reset at its start
  std::string current_;
};

}  // namespace ptq
