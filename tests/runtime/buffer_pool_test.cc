// The tensor buffer cache: reuse by exact size, alignment, and the per-size bound.
#include "runtime/buffer_pool.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

namespace ptq {
namespace {

constexpr bool kPooling = kBufferPoolEnabled;  // off under AddressSanitizer

TEST(BufferPool, BuffersAreAlignedAndReusedBySize) {
  const size_t bytes = 64 * 1001;  // a size no other test uses
  void* a = AcquireBuffer(bytes);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 64, 0u);
  ReleaseBuffer(a, bytes);
  void* b = AcquireBuffer(bytes);
  if (kPooling) {
    EXPECT_EQ(b, a) << "a released buffer of the same size is reused";
  }
  void* c = AcquireBuffer(bytes);
  EXPECT_NE(c, b);
  ReleaseBuffer(b, bytes);
  ReleaseBuffer(c, bytes);
}

TEST(BufferPool, KeepsAtMostTheBoundPerSize) {
  // Above kMaxArenaBufferBytes: malloc'ed buffers, which the cache bounds (arena buffers are all kept).
  const size_t bytes = kMaxArenaBufferBytes + 64 * 1003;
  std::vector<void*> held;
  for (size_t i = 0; i < kMaxBuffersPerSize + 4; ++i) held.push_back(AcquireBuffer(bytes));
  const std::set<void*> first(held.begin(), held.end());
  for (void* p : held) ReleaseBuffer(p, bytes);
  // Only kMaxBuffersPerSize of them can come back; the rest were freed.
  std::vector<void*> again;
  size_t reused = 0;
  for (size_t i = 0; i < kMaxBuffersPerSize + 4; ++i) {
    again.push_back(AcquireBuffer(bytes));
    reused += first.count(again.back());
  }
  if (kPooling) {
    EXPECT_GE(reused, kMaxBuffersPerSize);
  }
  for (void* p : again) ReleaseBuffer(p, bytes);
}

}  // namespace
}  // namespace ptq
