// The tensor buffer cache: free lists keyed by exact size, under one mutex, bounded in count and bytes;
// fresh buffers carved from huge-page chunks.
#include "runtime/buffer_pool.h"

#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <unordered_map>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif


namespace ptq {
namespace {

constexpr size_t kChunkBytes = size_t{2} << 20;  // one transparent huge page

struct Pool {
  std::mutex mutex;
  std::unordered_map<size_t, std::vector<void*>> free_lists;  // malloc'ed buffers
  size_t cached_bytes = 0;
  std::unordered_map<size_t, std::vector<void*>> arena_free;  // idle buffers carved from chunks
  std::vector<char*> chunks;
  char* next = nullptr;  // the unused rest of the last chunk
  char* end = nullptr;
};

// Never destroyed: tensors may be released during static destruction.
Pool& GlobalPool() {
  static Pool* pool = new Pool;
  return *pool;
}

// A new 2 MiB-aligned chunk advised for transparent huge pages (where the kernel has them enabled, its
// first touch is one page fault instead of 512), or nullptr.
char* NewChunk() {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  void* p = mmap(nullptr, 2 * kChunkBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  char* base = static_cast<char*>(p);
  char* aligned = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(base) + kChunkBytes - 1) & ~(kChunkBytes - 1));
  if (aligned > base) munmap(base, static_cast<size_t>(aligned - base));
  char* tail = aligned + kChunkBytes;
  if (tail < base + 2 * kChunkBytes) munmap(tail, static_cast<size_t>(base + 2 * kChunkBytes - tail));
  madvise(aligned, kChunkBytes, MADV_HUGEPAGE);  // best effort
  return aligned;
#else
  return nullptr;
#endif
}

bool InArena(const Pool& pool, const void* p) {
  const char* c = static_cast<const char*>(p);
  for (const char* chunk : pool.chunks) {
    if (c >= chunk && c < chunk + kChunkBytes) return true;
  }
  return false;
}

// A fresh buffer from the chunks, or nullptr when it does not fit the arena's bounds. Holds pool.mutex.
void* CarveLocked(Pool& pool, size_t bytes) {
  if (bytes > kMaxArenaBufferBytes) return nullptr;
  if (pool.next == nullptr || static_cast<size_t>(pool.end - pool.next) < bytes) {
    if ((pool.chunks.size() + 1) * kChunkBytes > kMaxArenaBytes) return nullptr;
    char* chunk = NewChunk();
    if (chunk == nullptr) return nullptr;
    pool.chunks.push_back(chunk);
    pool.next = chunk;
    pool.end = chunk + kChunkBytes;
  }
  void* p = pool.next;
  pool.next += bytes;
  return p;
}

}  // namespace

void* AcquireBuffer(size_t bytes) {
  if (kBufferPoolEnabled && bytes <= kMaxPooledBufferBytes) {
    Pool& pool = GlobalPool();
    std::lock_guard<std::mutex> lock(pool.mutex);
    auto it = pool.free_lists.find(bytes);
    if (it != pool.free_lists.end() && !it->second.empty()) {
      void* p = it->second.back();
      it->second.pop_back();
      pool.cached_bytes -= bytes;
      return p;
    }
    auto a = pool.arena_free.find(bytes);
    if (a != pool.arena_free.end() && !a->second.empty()) {
      void* p = a->second.back();
      a->second.pop_back();
      return p;
    }
    if (void* p = CarveLocked(pool, bytes)) return p;
  }
  if (bytes >= kHugePageBytes) {
    const size_t rounded = (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
    void* p = std::aligned_alloc(kHugePageBytes, rounded);
    if (p != nullptr) madvise(p, rounded, MADV_HUGEPAGE);  // best effort
    return p;
  }
  return std::aligned_alloc(64, bytes);
}

void ReleaseBuffer(void* buffer, size_t bytes) {
  if (buffer == nullptr) return;
  if (kBufferPoolEnabled && bytes <= kMaxPooledBufferBytes) {
    Pool& pool = GlobalPool();
    std::lock_guard<std::mutex> lock(pool.mutex);
    if (bytes <= kMaxArenaBufferBytes && InArena(pool, buffer)) {
      pool.arena_free[bytes].push_back(buffer);  // arena memory is never freed (bounded by kMaxArenaBytes)
      return;
    }
    std::vector<void*>& list = pool.free_lists[bytes];
    if (list.size() < kMaxBuffersPerSize && pool.cached_bytes + bytes <= kMaxCachedBytes) {
      list.push_back(buffer);
      pool.cached_bytes += bytes;
      return;
    }
  }
  std::free(buffer);
}

void ReleaseCachedBuffers() {
  if (!kBufferPoolEnabled) return;
  Pool& pool = GlobalPool();
  std::lock_guard<std::mutex> lock(pool.mutex);
  for (auto& [bytes, list] : pool.free_lists) {
    for (void* p : list) std::free(p);
  }
  pool.free_lists.clear();
  pool.cached_bytes = 0;
}

}  // namespace ptq
