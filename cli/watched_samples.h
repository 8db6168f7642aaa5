// Passes over samples that report each batch: for progress, and so that a caller (the Python module) can
// stop a job between two batches by throwing from the hook.
#pragma once

#include <cstdint>
#include <functional>

#include "calibrate/sample_source.h"

namespace ptq {

// Called with (samples given so far in this pass, the pass's total or -1): once when a pass opens (0)
// and after every batch.
using BatchHook = std::function<void(int64_t done, int64_t total)>;

// `inner`'s passes, each calling `hook`. An empty hook gives `inner` back.
SampleSourceFactory WatchedSamples(SampleSourceFactory inner, BatchHook hook);

}  // namespace ptq
