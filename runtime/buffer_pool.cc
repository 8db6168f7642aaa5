// The tensor buffer cache: free lists keyed by exact size, under one mutex, bounded in count and bytes.
#include "runtime/buffer_pool.h"

#include <cstdlib>
#include <mutex>
#include <unordered_map>
#include <vector>

// Under AddressSanitizer every buffer is freed at once, so that a use after free is still reported.
#if defined(__SANITIZE_ADDRESS__)
#define PTQ_POOL_BUFFERS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PTQ_POOL_BUFFERS 0
#endif
#endif
#ifndef PTQ_POOL_BUFFERS
#define PTQ_POOL_BUFFERS 1
#endif

namespace ptq {
namespace {

struct Pool {
  std::mutex mutex;
  std::unordered_map<size_t, std::vector<void*>> free_lists;
  size_t cached_bytes = 0;
};

// Never destroyed: tensors may be released during static destruction.
Pool& GlobalPool() {
  static Pool* pool = new Pool;
  return *pool;
}

}  // namespace

void* AcquireBuffer(size_t bytes) {
  if (PTQ_POOL_BUFFERS && bytes <= kMaxPooledBufferBytes) {
    Pool& pool = GlobalPool();
    std::lock_guard<std::mutex> lock(pool.mutex);
    auto it = pool.free_lists.find(bytes);
    if (it != pool.free_lists.end() && !it->second.empty()) {
      void* p = it->second.back();
      it->second.pop_back();
      pool.cached_bytes -= bytes;
      return p;
    }
  }
  return std::aligned_alloc(64, bytes);
}

void ReleaseBuffer(void* buffer, size_t bytes) {
  if (buffer == nullptr) return;
  if (PTQ_POOL_BUFFERS && bytes <= kMaxPooledBufferBytes) {
    Pool& pool = GlobalPool();
    std::lock_guard<std::mutex> lock(pool.mutex);
    std::vector<void*>& list = pool.free_lists[bytes];
    if (list.size() < kMaxBuffersPerSize && pool.cached_bytes + bytes <= kMaxCachedBytes) {
      list.push_back(buffer);
      pool.cached_bytes += bytes;
      return;
    }
  }
  std::free(buffer);
}

}  // namespace ptq
