// SharedZeros: a read-only run of zero bytes as long as asked for, shared by every caller and never freed.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <new>
#include <vector>

namespace ptq {

// At least `bytes` zero bytes, valid until the program ends: padding that kernels read (a depthwise
// convolution's kernel rows above or below the image) without zeroing a buffer on every call (a 112 x 112 x 96
// float row of them was 1% of MobileNetV2 int8's samples, in memset). Thread-safe; a longer run is a new block,
// and the shorter ones stay valid for whoever holds them. Callers never write to it. Large blocks come from
// calloc, whose fresh pages the system maps to its zero page until written, which never happens here.
inline const void* SharedZeros(size_t bytes) {
  struct Free {
    void operator()(void* p) const { std::free(p); }
  };
  static std::mutex mutex;
  static std::vector<std::unique_ptr<void, Free>> blocks;
  static size_t size = 0;
  std::lock_guard<std::mutex> lock(mutex);
  if (blocks.empty() || bytes > size) {
    size = std::max<size_t>({bytes, 2 * size, 4096});
    void* block = std::calloc(size, 1);
    if (block == nullptr) throw std::bad_alloc();
    blocks.emplace_back(block);
  }
  return blocks.back().get();
}

}  // namespace ptq
