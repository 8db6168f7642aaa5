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

// Work shared between threads is cut into this many contiguous units per thread, each thread taking its own
// (schedule(static)), the same split from one layer to the next: a thread then reads the rows it wrote itself, from
// its own cache. This machine's two vCPUs sit on one L3 cache at times and on two at others (a cache line went
// from one to the other in about 50 ns, then in 350 for minutes on end). MobileNetV2 int8 at batch 1 on two
// threads, with four units a thread taken in turn by whichever thread was free: 2.45 and 4.1 ms in the two states
// (4.0 on one thread); with one range a thread: 2.3 and 3.3. Units taken in turn did not help a thread held up by
// another process on its core either (6.4 against 6.3 ms).
constexpr int kUnitsPerThread = 1;

// Items per unit when `threads` share n items in kUnitsPerThread units each (the last unit may be short).
inline int64_t ItemsPerUnit(int64_t n, int threads) {
  const int64_t units = int64_t{threads} * kUnitsPerThread;
  return (n + units - 1) / units;
}

}  // namespace ptq
