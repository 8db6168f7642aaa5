// The tensor buffer pool: first fit over address-ordered free blocks of large huge-page regions, freed
// blocks coalesced, under one mutex; buffers too large for a region come from aligned_alloc.
#include "runtime/buffer_pool.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <map>
#include <mutex>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace ptq {
namespace {

struct Region {
  char* base;
  size_t bytes;
};

struct FreeBlock {
  size_t bytes;
  const char* region;  // its region's base: blocks of different regions are never joined
};

struct Pool {
  std::mutex mutex;
  std::vector<Region> regions;
  std::map<char*, FreeBlock> free_blocks;  // by address; no two adjacent ones of a region
};

// Never destroyed: tensors may be released during static destruction.
Pool& GlobalPool() {
  static Pool* pool = new Pool;
  return *pool;
}

// A new kHugePageBytes-aligned mapping of `bytes` (a multiple of kHugePageBytes) advised for transparent
// huge pages (where the kernel has them enabled, its first touch is one page fault per 2 MiB instead of
// per 4 KiB), or nullptr. Untouched pages take no memory.
char* MapRegion(size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const size_t reserve = bytes + kHugePageBytes;
  void* p = mmap(nullptr, reserve, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  char* base = static_cast<char*>(p);
  char* aligned =
      reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(base) + kHugePageBytes - 1) & ~(kHugePageBytes - 1));
  if (aligned > base) munmap(base, static_cast<size_t>(aligned - base));
  char* tail = aligned + bytes;
  if (tail < base + reserve) munmap(tail, static_cast<size_t>(base + reserve - tail));
  madvise(aligned, bytes, MADV_HUGEPAGE);  // best effort
  return aligned;
#else
  (void)bytes;
  return nullptr;
#endif
}

// Takes `bytes` from the lowest-addressed free block that holds them, or nullptr. Holds pool.mutex.
void* FirstFitLocked(Pool& pool, size_t bytes) {
  for (auto it = pool.free_blocks.begin(); it != pool.free_blocks.end(); ++it) {
    if (it->second.bytes < bytes) continue;
    char* p = it->first;
    const FreeBlock rest{it->second.bytes - bytes, it->second.region};
    pool.free_blocks.erase(it);
    if (rest.bytes > 0) pool.free_blocks.emplace(p + bytes, rest);
    return p;
  }
  return nullptr;
}

// The base of the region holding p, or nullptr.
const char* RegionOf(const Pool& pool, const char* p) {
  for (const Region& r : pool.regions) {
    if (p >= r.base && p < r.base + r.bytes) return r.base;
  }
  return nullptr;
}

// Gives [p, p + bytes) of region r back, joined with the free blocks it touches. Holds pool.mutex.
void FreeLocked(Pool& pool, char* p, size_t bytes, const char* r) {
  auto next = pool.free_blocks.lower_bound(p);
  if (next != pool.free_blocks.end() && next->second.region == r && p + bytes == next->first) {
    bytes += next->second.bytes;
    next = pool.free_blocks.erase(next);
  }
  if (next != pool.free_blocks.begin()) {
    auto prev = std::prev(next);
    if (prev->second.region == r && prev->first + prev->second.bytes == p) {
      prev->second.bytes += bytes;
      return;
    }
  }
  pool.free_blocks.emplace(p, FreeBlock{bytes, r});
}

void* AlignedAlloc(size_t bytes) {
  if (bytes >= kHugePageBytes) {
    const size_t rounded = (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
    void* p = std::aligned_alloc(kHugePageBytes, rounded);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (p != nullptr) madvise(p, rounded, MADV_HUGEPAGE);  // best effort
#endif
    return p;
  }
  return std::aligned_alloc(64, bytes);
}

}  // namespace

void* AcquireBuffer(size_t bytes) {
  if (!kBufferPoolEnabled || bytes > kMaxRegionBufferBytes) return AlignedAlloc(bytes);
  Pool& pool = GlobalPool();
  std::lock_guard<std::mutex> lock(pool.mutex);
  if (void* p = FirstFitLocked(pool, bytes)) return p;
  const size_t region_bytes =
      bytes <= kRegionBytes ? kRegionBytes : (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  char* base = MapRegion(region_bytes);
  if (base == nullptr) return AlignedAlloc(bytes);
  pool.regions.push_back({base, region_bytes});
  pool.free_blocks.emplace(base, FreeBlock{region_bytes, base});
  return FirstFitLocked(pool, bytes);
}

void ReleaseBuffer(void* buffer, size_t bytes) {
  if (buffer == nullptr) return;
  if (kBufferPoolEnabled && bytes <= kMaxRegionBufferBytes) {
    Pool& pool = GlobalPool();
    std::lock_guard<std::mutex> lock(pool.mutex);
    char* p = static_cast<char*>(buffer);
    if (const char* r = RegionOf(pool, p)) {
      FreeLocked(pool, p, bytes, r);
      return;
    }
  }
  std::free(buffer);  // from AlignedAlloc (too large, or no region could be mapped)
}

void ReleaseCachedBuffers() {
  if (!kBufferPoolEnabled) return;
#if defined(__linux__)
  Pool& pool = GlobalPool();
  std::lock_guard<std::mutex> lock(pool.mutex);
  // Regions with no buffer in use are unmapped; in the others, whole free pages go back to the system
  // (they read as zeros when touched again).
  const uintptr_t page = 4096;
  for (auto it = pool.free_blocks.begin(); it != pool.free_blocks.end();) {
    char* p = it->first;
    const FreeBlock block = it->second;
    if (p == block.region) {
      auto r = std::find_if(pool.regions.begin(), pool.regions.end(), [&](const Region& x) { return x.base == p; });
      if (r != pool.regions.end() && r->bytes == block.bytes) {
        munmap(r->base, r->bytes);
        pool.regions.erase(r);
        it = pool.free_blocks.erase(it);
        continue;
      }
    }
    const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + page - 1) & ~(page - 1);
    const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + block.bytes) & ~(page - 1);
    if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
    ++it;
  }
#endif
}

}  // namespace ptq
