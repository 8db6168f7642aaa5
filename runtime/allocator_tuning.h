// Process-wide allocator settings for repeated inference: keep freed tensor memory instead of
// returning it to the OS after every run; and give it back between the stages of a command.
#pragma once

namespace ptq {

// With glibc, stops malloc from trimming the heap and from serving blocks below 32 MiB with fresh
// mmap()s: a model run frees and re-allocates the same tensor sizes every time, and each trip to the
// OS costs page faults and zero-filling (a third of the time of a small int8 ViT run, measured with
// perf). Fastbins are off as well: their consolidation cost about 6% of a run and tcache serves
// small blocks anyway. Memory in use is unchanged; freed memory stays reserved for the next run. Elsewhere a no-op.
void TuneAllocatorForRepeatedRuns();

// Gives freed memory back to the system: the tensor buffer cache (ReleaseCachedBuffers) and malloc's free
// pages (glibc's malloc_trim). For the boundaries between a command's stages. Elsewhere than glibc, only
// the cache.
void ReturnFreedMemory();

}  // namespace ptq
