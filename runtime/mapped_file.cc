// MapFileRange: page-aligned read-only mmap windows owned by shared_ptrs, munmapped by their deleter.
#include "runtime/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>

#include "runtime/error.h"
#include "runtime/memory_usage.h"

namespace ptq {
namespace {

int64_t PageBytes() {
  static const int64_t page = ::sysconf(_SC_PAGESIZE);
  return page;
}

// The deleter of a mapped buffer; it also tells IsMappedBuffer and DropResidentPages the window.
struct Unmap {
  void* base;
  size_t bytes;
  void operator()(void*) const { ::munmap(base, bytes); }
};

// The ranges mapped now, by file and range: a range mapped again while a mapping of it lives (a weight
// read by the rewrite while the validation graph holds it) shares that mapping, so that its pages are
// mapped, and counted resident, once.
struct Registry {
  std::mutex mutex;
  std::map<std::tuple<dev_t, ino_t, int64_t, int64_t>, std::weak_ptr<void>> live;  // guarded by mutex
  size_t swept = 0;  // live.size() after the last sweep of expired entries
};

Registry& Mappings() {
  static Registry* r = new Registry;  // never destroyed: mappings may be released during exit
  return *r;
}

std::shared_ptr<void> Map(int fd, const std::string& path, int64_t offset, int64_t length) {
  const int64_t page = PageBytes();
  const int64_t start = offset / page * page;
  const int64_t end = offset + length + kTensorOverreadBytes;
  const auto bytes = static_cast<size_t>((end - start + page - 1) / page * page);
  void* base = ::mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE, fd, static_cast<off_t>(start));
  if (base == MAP_FAILED) {
    const int err = errno;
    if (err == ENOMEM) ThrowOutOfMemory("mapping " + std::to_string(bytes) + " bytes of " + path);
    ThrowInputError(path, ": cannot map ", bytes, " bytes at offset ", start, ": ", std::strerror(err));
  }
  void* at = static_cast<char*>(base) + (offset - start);
  return std::shared_ptr<void>(at, Unmap{base, bytes});
}

}  // namespace

bool CanMapWithOverread(int64_t offset, int64_t length, int64_t file_size) {
  const int64_t page = PageBytes();
  const int64_t readable = (file_size + page - 1) / page * page;  // the last page reads as zeros past the end
  return length > 0 && offset >= 0 && offset + length + kTensorOverreadBytes <= readable;
}

std::shared_ptr<void> MapFileRange(const std::string& path, int64_t offset, int64_t length) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) ThrowInputError(path, ": cannot open for reading: ", std::strerror(errno));
  struct Close {
    int fd;
    ~Close() { ::close(fd); }  // the mapping keeps the file
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) ThrowInputError(path, ": cannot read its size: ", std::strerror(errno));
  Registry& r = Mappings();
  std::lock_guard<std::mutex> lock(r.mutex);
  const auto key = std::make_tuple(st.st_dev, st.st_ino, offset, length);
  auto it = r.live.find(key);
  if (it != r.live.end()) {
    if (std::shared_ptr<void> mapped = it->second.lock()) return mapped;
  }
  if (r.live.size() >= 2 * r.swept + 64) {  // expired entries swept out now and then: linear in all
    for (auto e = r.live.begin(); e != r.live.end();) e = e->second.expired() ? r.live.erase(e) : std::next(e);
    r.swept = r.live.size();
  }
  std::shared_ptr<void> mapped = Map(fd, path, offset, length);
  r.live[key] = mapped;
  return mapped;
}

bool IsMappedBuffer(const std::shared_ptr<void>& buffer) { return std::get_deleter<Unmap>(buffer) != nullptr; }

void DropResidentPages(const std::shared_ptr<void>& buffer) {
  if (const Unmap* u = std::get_deleter<Unmap>(buffer)) ::madvise(u->base, u->bytes, MADV_DONTNEED);
}

}  // namespace ptq
