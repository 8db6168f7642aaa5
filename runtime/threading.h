// The number of threads kernels may use (Eigen's GEMM and OpenMP loops).
#pragma once

#include <omp.h>

#include <cstdint>

namespace ptq {

// Sets the threads used by kernels; n <= 0 means one per core.
void SetNumThreads(int n);
int NumThreads();

// Whether the caller runs inside an OpenMP parallel region, active or not. Kernels then keep to the calling
// thread: a team started inside an inactive region (a loop's `if (threads > 1)` false, or num_threads(1)) gets
// new threads every time, as libgomp keeps its pool for the outermost team only. omp_in_parallel() is false
// there: a SiLU convolution's one block of rows, whose GEMM then split itself, took 2.5 ms on two threads
// for 0.05 ms of work (EfficientNet-B0's squeeze-excitation convolutions at batch 8).
inline bool InParallelRegion() { return omp_get_level() > 0; }

// Threads for a job of `work` units (values, multiply-adds) that pays for a team from `min_work` units on: one
// below that (starting the team costs more than it saves) or inside a parallel region; else every thread.
inline int ThreadsForWork(int64_t work, int64_t min_work) {
  return InParallelRegion() || work < min_work ? 1 : omp_get_max_threads();
}

// Work shared between threads is cut into about this many units per thread, taken in turn by whichever
// thread is free (schedule(dynamic)): on a shared machine one thread can be held up for a while (another
// tenant on its core), and the others then take over its remaining units instead of waiting for them.
constexpr int kUnitsPerThread = 4;

// Items per unit when `threads` share n items in kUnitsPerThread units each (the last unit may be short).
inline int64_t ItemsPerUnit(int64_t n, int threads) {
  const int64_t units = int64_t{threads} * kUnitsPerThread;
  return (n + units - 1) / units;
}

}  // namespace ptq
