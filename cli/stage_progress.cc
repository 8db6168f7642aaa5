// StageProgress: stage lines, memory given back between stages, per-stage peak RSS.
#include "cli/stage_progress.h"

#include <iostream>

#include "runtime/allocator_tuning.h"
#include "runtime/memory_usage.h"

namespace ptq {

void StageProgress::Start(int k, const std::string& name, const std::string& line) {
  End();
  ReturnFreedMemory();
  per_stage_ = ResetPeakRss();
  current_ = name;
  SetMemoryStage(name);
  if (!quiet_) std::cerr << "[" << k << "/4] " << line << "\n";
}

void StageProgress::End() {
  if (current_.empty()) return;
  const int64_t peak = PeakRssBytes();
  if (!quiet_ && peak >= 0) {
    std::cerr << "ptq: memory: " << current_ << ": peak RSS " << FormatGigabytes(peak)
              << (per_stage_ ? "" : " (the process's peak so far)") << "\n";
  }
  current_.clear();
}

}  // namespace ptq
