// AlignedVector: a std::vector whose storage starts on a 64-byte cache line (packed weights).
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>
#include <vector>

namespace ptq {

// Packed weight panels are read with 32- and 64-byte vector loads at offsets that are multiples of 64
// bytes from the start; malloc's 16-byte alignment put every second 32-byte load of a float panel across
// two cache lines.
template <class T>
struct CacheLineAllocator {
  using value_type = T;
  static constexpr size_t kAlignment = 64;
  CacheLineAllocator() = default;
  template <class U>
  CacheLineAllocator(const CacheLineAllocator<U>&) {}
  T* allocate(size_t n) {
    const size_t bytes = (n * sizeof(T) + kAlignment - 1) / kAlignment * kAlignment;
    void* p = std::aligned_alloc(kAlignment, bytes == 0 ? kAlignment : bytes);
    if (p == nullptr) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t) { std::free(p); }
  template <class U>
  bool operator==(const CacheLineAllocator<U>&) const { return true; }
  template <class U>
  bool operator!=(const CacheLineAllocator<U>&) const { return false; }
};

template <class T>
using AlignedVector = std::vector<T, CacheLineAllocator<T>>;

}  // namespace ptq
