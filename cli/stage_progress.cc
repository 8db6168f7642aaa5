// StageProgress: stage lines, memory given back between stages, per-stage peak RSS.
#include "cli/stage_progress.h"

#include <iostream>

#include "runtime/allocator_tuning.h"
#include "runtime/memory_usage.h"

namespace ptq {

void StageProgress::Start(int k, const std::string& name, const std::string& line) {
  End();
  ReturnFreedMemory();
  per_stage_ = ResetPeakRss() && per_stage_;
  current_ = name;
  SetMemoryStage(name);
  if (!quiet_) std::cerr << "[" << k << "/4] " << line << "\n";
}

void StageProgress::End() {
  if (current_.empty()) return;
  const int64_t peak = PeakRssBytes();
  peaks_.emplace_back(current_, peak);
  if (!quiet_ && peak >= 0) std::cerr << "ptq: memory: " << current_ << ": peak RSS " << FormatGigabytes(peak) << "\n";
  current_.clear();
}

nlohmann::json StageProgress::MemoryJson() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, peak] : peaks_) {
    j[name] = {{"peak_rss_bytes", peak}};
  }
  if (!per_stage_) j["per_stage"] = false;
  return j;
}

}  // namespace ptq
