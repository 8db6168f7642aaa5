// Process-wide allocator settings for repeated inference: keep freed tensor memory instead of
// returning it to the OS after every run.
#pragma once

namespace ptq {

// With glibc, stops malloc from trimming the heap and from serving blocks below 32 MiB with fresh
// mmap()s: a model run frees and re-allocates the same tensor sizes every time, and each trip to the
// OS costs page faults and zero-filling (a third of the time of a small int8 ViT run, measured with
// perf). Fastbins are off as well: their consolidation cost about 6% of a run and tcache serves
// small blocks anyway. Memory in use is unchanged; freed memory stays reserved for the next run. Elsewhere a no-op.
void TuneAllocatorForRepeatedRuns();

}  // namespace ptq
