// Thread-count setting shared by Eigen and OpenMP.
#include "runtime/threading.h"

#include <omp.h>

#include <Eigen/Core>
#include <thread>

namespace ptq {

void SetNumThreads(int n) {
  if (n <= 0) n = static_cast<int>(std::thread::hardware_concurrency());
  if (n <= 0) n = 1;
  omp_set_num_threads(n);
  Eigen::setNbThreads(n);
}

int NumThreads() { return Eigen::nbThreads(); }

}  // namespace ptq
