// The number of threads kernels may use (Eigen's GEMM and OpenMP loops).
#pragma once

namespace ptq {

// Sets the threads used by kernels; n <= 0 means one per core.
void SetNumThreads(int n);
int NumThreads();

}  // namespace ptq
