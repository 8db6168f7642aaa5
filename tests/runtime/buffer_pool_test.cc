// The tensor buffer pool: alignment, first-fit reuse across sizes, joined free blocks, memory given back,
// and buffers that never overlap when threads share the pool.
#include "runtime/buffer_pool.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

namespace ptq {
namespace {

constexpr bool kPooling = kBufferPoolEnabled;  // off under AddressSanitizer
constexpr size_t kMiB = size_t{1} << 20;

TEST(BufferPool, BuffersAreAlignedAndReusedBySize) {
  const size_t bytes = 64 * 1001;
  void* a = AcquireBuffer(bytes);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 64, 0u);
  ReleaseBuffer(a, bytes);
  void* b = AcquireBuffer(bytes);
  if (kPooling) {
    EXPECT_EQ(b, a) << "the lowest free place that holds the buffer is the one just given back";
  }
  void* c = AcquireBuffer(bytes);
  EXPECT_NE(c, b);
  ReleaseBuffer(b, bytes);
  ReleaseBuffer(c, bytes);
}

// Buffers given back one after the other join, and a larger buffer takes their place (the memory a model's
// next tensor is written to is the memory its last ones were read from); a smaller one takes the start.
TEST(BufferPool, ALargerBufferTakesThePlaceOfNeighboursFreedBeforeIt) {
  if (!kPooling) GTEST_SKIP() << "no pool under AddressSanitizer";
  ReleaseCachedBuffers();
  char* a = static_cast<char*>(AcquireBuffer(12 * kMiB));
  char* b = static_cast<char*>(AcquireBuffer(12 * kMiB));
  char* c = static_cast<char*>(AcquireBuffer(12 * kMiB));
  ASSERT_EQ(b, a + 12 * kMiB) << "consecutive buffers of a region follow each other";
  ASSERT_EQ(c, b + 12 * kMiB);
  ReleaseBuffer(b, 12 * kMiB);
  ReleaseBuffer(a, 12 * kMiB);
  char* d = static_cast<char*>(AcquireBuffer(20 * kMiB));
  EXPECT_EQ(d, a) << "a and b joined into one free block of 24 MiB";
  char* e = static_cast<char*>(AcquireBuffer(4 * kMiB));
  EXPECT_EQ(e, a + 20 * kMiB) << "the 4 MiB left of that block come first";
  ReleaseBuffer(c, 12 * kMiB);
  ReleaseBuffer(e, 4 * kMiB);
  ReleaseBuffer(d, 20 * kMiB);
  char* f = static_cast<char*>(AcquireBuffer(36 * kMiB));
  EXPECT_EQ(f, a) << "all five joined again";
  ReleaseBuffer(f, 36 * kMiB);
}

// After ReleaseCachedBuffers the pages of freed buffers are no longer resident, and the pool still works.
TEST(BufferPool, FreedMemoryGoesBackToTheSystem) {
  if (!kPooling) GTEST_SKIP() << "no pool under AddressSanitizer";
  const size_t bytes = 8 * kMiB;
  char* p = static_cast<char*>(AcquireBuffer(bytes));
  ASSERT_NE(p, nullptr);
  std::memset(p, 1, bytes);
  ReleaseBuffer(p, bytes);
  ReleaseCachedBuffers();
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> resident(bytes / page);
  const int rc = mincore(p, bytes, resident.data());
  if (rc != 0) {
    EXPECT_EQ(errno, ENOMEM) << "the region was unmapped";
  } else {
    size_t pages = 0;
    for (unsigned char r : resident) pages += r & 1;
    EXPECT_EQ(pages, 0u) << "of " << resident.size() << " pages";
  }
  void* q = AcquireBuffer(bytes);
  ASSERT_NE(q, nullptr);
  std::memset(q, 2, bytes);
  ReleaseBuffer(q, bytes);
}

// Many sizes at once: aligned, disjoint (each keeps what was written to it), and back from the pool when
// asked for again after all were given back; a buffer larger than a region gets a region of its own, and
// one past kMaxRegionBufferBytes comes from aligned_alloc.
TEST(BufferPool, ManySizesAreDisjointAndComeBackFromThePool) {
  std::vector<std::pair<char*, size_t>> held;
  for (size_t i = 0; i < 200; ++i) {
    const size_t bytes = 64 * (1 + (i * 37) % 4000);
    char* p = static_cast<char*>(AcquireBuffer(bytes));
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
    std::memset(p, static_cast<int>(i & 0xff), bytes);
    held.push_back({p, bytes});
  }
  for (size_t i = 0; i < held.size(); ++i) {
    const auto& [p, bytes] = held[i];
    EXPECT_EQ(static_cast<unsigned char>(p[0]), i & 0xff) << i;
    EXPECT_EQ(static_cast<unsigned char>(p[bytes - 1]), i & 0xff) << i;
  }
  const char* lowest = held[0].first;  // the first buffer took the lowest free place of all
  for (const auto& h : held) ReleaseBuffer(h.first, h.second);
  char* again = static_cast<char*>(AcquireBuffer(held[5].second));
  if (kPooling) {
    EXPECT_EQ(again, lowest) << "the buffers given back joined from the lowest one on";
  }
  ReleaseBuffer(again, held[5].second);
  for (const size_t bytes : {kRegionBytes + 64, kMaxRegionBufferBytes + 64}) {
    char* p = static_cast<char*>(AcquireBuffer(bytes));
    ASSERT_NE(p, nullptr) << bytes;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
    p[0] = 1;
    p[bytes - 1] = 2;
    ReleaseBuffer(p, bytes);
  }
}

// Threads acquiring and releasing buffers of many sizes at once never get overlapping buffers: each
// fills its buffer with its own byte and finds it intact before giving it back.
TEST(BufferPool, ThreadsNeverShareABuffer) {
  std::vector<std::thread> threads;
  std::vector<int> damaged(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t, &damaged] {
      std::vector<std::pair<unsigned char*, size_t>> held;
      for (int i = 0; i < 400; ++i) {
        const size_t bytes = 64 * static_cast<size_t>(1 + (i * 7919 + t * 104729) % 3000);
        auto* p = static_cast<unsigned char*>(AcquireBuffer(bytes));
        std::memset(p, t + 1, bytes);
        held.emplace_back(p, bytes);
        if (held.size() > 6 || i % 5 == 0) {
          auto [q, n] = held[static_cast<size_t>(i) % held.size()];
          for (size_t k = 0; k < n; k += 61) damaged[static_cast<size_t>(t)] += q[k] != t + 1;
          ReleaseBuffer(q, n);
          held.erase(held.begin() + static_cast<std::ptrdiff_t>(static_cast<size_t>(i) % held.size()));
        }
      }
      for (auto [q, n] : held) {
        for (size_t k = 0; k < n; k += 61) damaged[static_cast<size_t>(t)] += q[k] != t + 1;
        ReleaseBuffer(q, n);
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(damaged[static_cast<size_t>(t)], 0) << "thread " << t;
}

}  // namespace
}  // namespace ptq
