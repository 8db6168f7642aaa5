// The buffer pool's huge-page chunks: carved buffers are aligned, disjoint, writable, reused by size,
// and sizes past kMaxArenaBufferBytes still work (from malloc).
#include "runtime/buffer_pool.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <set>
#include <vector>

namespace ptq {
namespace {

TEST(BufferPoolArena, CarvedBuffersAreAlignedDisjointAndReusedBySize) {
  std::vector<std::pair<char*, size_t>> held;
  for (size_t i = 0; i < 200; ++i) {
    const size_t bytes = 64 * (1 + (i * 37) % 4000);  // up to 256 KiB: several chunks' worth
    char* p = static_cast<char*>(AcquireBuffer(bytes));
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
    std::memset(p, static_cast<int>(i & 0xff), bytes);
    held.push_back({p, bytes});
  }
  for (size_t i = 0; i < held.size(); ++i) {  // no buffer overwrote another
    const auto& [p, bytes] = held[i];
    EXPECT_EQ(static_cast<unsigned char>(p[0]), i & 0xff) << i;
    EXPECT_EQ(static_cast<unsigned char>(p[bytes - 1]), i & 0xff) << i;
  }
  std::set<char*> first;
  for (const auto& h : held) {
    first.insert(h.first);
    ReleaseBuffer(h.first, h.second);
  }
  size_t reused = 0;
  for (const auto& h : held) {
    char* p = static_cast<char*>(AcquireBuffer(h.second));
    reused += first.count(p);
    ReleaseBuffer(p, h.second);
  }
  if (kBufferPoolEnabled) {
    EXPECT_EQ(reused, held.size());  // every size comes back from the pool
  }
}

TEST(BufferPoolArena, BuffersLargerThanTheArenaLimitStillWork) {
  const size_t bytes = kMaxArenaBufferBytes + 64;
  char* p = static_cast<char*>(AcquireBuffer(bytes));
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
  std::memset(p, 1, bytes);
  ReleaseBuffer(p, bytes);
}

}  // namespace
}  // namespace ptq
