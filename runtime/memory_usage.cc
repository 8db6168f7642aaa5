// Resident memory from /proc/self/status, peak resets through /proc/self/clear_refs, the out-of-memory error.
#include "runtime/memory_usage.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <mutex>

#include "runtime/error.h"

namespace ptq {
namespace {

// The value of a "<key>:   123 kB" line of /proc/self/status, in bytes; -1 when absent. Reads with plain
// system calls into a stack buffer: it must work when the heap is exhausted.
int64_t StatusKilobytes(const char* key) {
  const int fd = ::open("/proc/self/status", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buf[8192];
  ssize_t n = 0, got;
  while (n < static_cast<ssize_t>(sizeof buf) - 1 && (got = ::read(fd, buf + n, sizeof buf - 1 - static_cast<size_t>(n))) > 0) n += got;
  ::close(fd);
  buf[n] = '\0';
  const size_t len = std::strlen(key);
  for (const char* line = buf; line && *line; line = std::strchr(line, '\n'), line = line ? line + 1 : nullptr) {
    if (std::strncmp(line, key, len) == 0 && line[len] == ':') {
      long long kb = -1;
      if (std::sscanf(line + len + 1, "%lld", &kb) == 1) return static_cast<int64_t>(kb) * 1024;
      return -1;
    }
  }
  return -1;
}

std::mutex stage_mutex;
std::string& Stage() {
  static std::string* s = new std::string;  // never destroyed: read by error paths during exit
  return *s;
}

}  // namespace

int64_t CurrentRssBytes() { return StatusKilobytes("VmRSS"); }
int64_t PeakRssBytes() { return StatusKilobytes("VmHWM"); }

bool ResetPeakRss() {
  const int fd = ::open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::write(fd, "5", 1) == 1;
  ::close(fd);
  return ok;
}

int64_t AddressSpaceLimit() {
  rlimit r{};
  if (::getrlimit(RLIMIT_AS, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return -1;
  return static_cast<int64_t>(r.rlim_cur);
}

void SetMemoryStage(const std::string& stage) {
  std::lock_guard<std::mutex> lock(stage_mutex);
  Stage() = stage;
}

std::string MemoryStage() {
  std::lock_guard<std::mutex> lock(stage_mutex);
  return Stage();
}

std::string FormatGigabytes(int64_t bytes) {
  char text[64];
  std::snprintf(text, sizeof text, "%.2f GB", static_cast<double>(bytes) / 1e9);
  return text;
}

std::string OutOfMemoryMessage(const std::string& what) {
  const std::string stage = MemoryStage();
  std::string m = "out of memory";
  if (!stage.empty()) m += " during " + stage;
  if (!what.empty()) m += " (" + what + ")";
  const int64_t rss = CurrentRssBytes(), peak = PeakRssBytes(), limit = AddressSpaceLimit();
  if (rss >= 0) m += ": " + FormatGigabytes(rss) + " resident, peak " + FormatGigabytes(peak);
  if (limit >= 0) m += ", address space " + FormatGigabytes(StatusKilobytes("VmSize")) + " of its limit of " + FormatGigabytes(limit);
  return m;
}

void ThrowOutOfMemory(const std::string& what) { throw Error(ErrorKind::kInput, OutOfMemoryMessage(what)); }

}  // namespace ptq
