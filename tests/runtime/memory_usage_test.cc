// Tests of the memory figures read from /proc (current and peak RSS, peak reset) and of the
// out-of-memory message.
#include "runtime/memory_usage.h"

#include <gtest/gtest.h>

#include <sys/mman.h>

#include <cstring>

#include "runtime/error.h"

namespace ptq {
namespace {

TEST(MemoryUsage, ResidentFiguresAreReadAndThePeakFollowsATouchedBuffer) {
  const int64_t rss = CurrentRssBytes();
  ASSERT_GT(rss, 0);
  EXPECT_GE(PeakRssBytes(), rss);
  if (!ResetPeakRss()) GTEST_SKIP() << "/proc/self/clear_refs refused: no per-stage peaks here";
  const int64_t before = PeakRssBytes();
  EXPECT_LT(before, rss + (int64_t{16} << 20));  // the reset brought the peak down to about what is resident
  {
    // Mapped and unmapped here, not through the allocator (which, under AddressSanitizer, keeps freed
    // memory resident), so that it leaves the resident set when unmapped.
    const size_t bytes = size_t{64} << 20;
    void* buffer = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(buffer, MAP_FAILED);
    std::memset(buffer, 1, bytes);  // resident now
    EXPECT_GE(PeakRssBytes(), before + (int64_t{60} << 20));
    ::munmap(buffer, bytes);
  }
  const int64_t peak = PeakRssBytes();
  EXPECT_GE(peak, before + (int64_t{60} << 20));  // the peak stays after the buffer is freed
  EXPECT_TRUE(ResetPeakRss());
  EXPECT_LT(PeakRssBytes(), peak);
}

TEST(MemoryUsage, OutOfMemoryNamesTheStageWhatAndTheMemoryInUse) {
  SetMemoryStage("rewrite");
  try {
    ThrowOutOfMemory("allocating 123 bytes");
    FAIL() << "no error thrown";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_EQ(e.kind(), ErrorKind::kInput);
    EXPECT_EQ(m.rfind("out of memory during rewrite (allocating 123 bytes): ", 0), 0u) << m;
    EXPECT_NE(m.find(" GB resident, peak "), std::string::npos) << m;
  }
  SetMemoryStage("");
  EXPECT_EQ(OutOfMemoryMessage("").rfind("out of memory: ", 0), 0u) << OutOfMemoryMessage("");
  EXPECT_EQ(FormatGigabytes(1234567890), "1.23 GB");
}

}  // namespace
}  // namespace ptq
