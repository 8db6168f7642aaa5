// glibc malloc settings for repeated runs (mallopt) and giving freed memory back, see allocator_tuning.h.
#include "runtime/allocator_tuning.h"

#include <cstdlib>  // defines __GLIBC__ with glibc

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "runtime/buffer_pool.h"

namespace ptq {

void TuneAllocatorForRepeatedRuns() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's maximum on 64-bit
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
  mallopt(M_MXFAST, 0);
#endif
}

void ReturnFreedMemory() {
  ReleaseCachedBuffers();
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

}  // namespace ptq
