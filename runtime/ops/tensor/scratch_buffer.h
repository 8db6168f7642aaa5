// Working memory a kernel keeps between runs: grows to the largest size asked for, never shrinks,
// and is not cleared, so that a run costs no allocation once the shapes have been seen.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>

namespace ptq {

class ScratchBuffer {
 public:
  // `count` uninitialised elements of T, 64-byte aligned, valid until the next Get. T must be
  // trivially copyable (float, double, integers).
  template <class T>
  T* Get(size_t count) {
    const size_t bytes = count * sizeof(T);
    if (bytes > capacity_) {
      const size_t rounded = (bytes + 63) / 64 * 64;
      data_.reset(static_cast<unsigned char*>(std::aligned_alloc(64, rounded)));
      if (!data_) throw std::bad_alloc();
      capacity_ = rounded;
    }
    return reinterpret_cast<T*>(data_.get());
  }

 private:
  struct Free {
    void operator()(unsigned char* p) const { std::free(p); }
  };
  std::unique_ptr<unsigned char, Free> data_;
  size_t capacity_ = 0;
};

}  // namespace ptq
