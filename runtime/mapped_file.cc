// MapFileRange: page-aligned read-only mmap windows owned by shared_ptrs, munmapped by their deleter.
#include "runtime/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

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

}  // namespace

bool CanMapWithOverread(int64_t offset, int64_t length, int64_t file_size) {
  const int64_t page = PageBytes();
  const int64_t readable = (file_size + page - 1) / page * page;  // the last page reads as zeros past the end
  return length > 0 && offset >= 0 && offset + length + kTensorOverreadBytes <= readable;
}

std::shared_ptr<void> MapFileRange(const std::string& path, int64_t offset, int64_t length) {
  const int64_t page = PageBytes();
  const int64_t start = offset / page * page;
  const int64_t end = offset + length + kTensorOverreadBytes;
  const auto bytes = static_cast<size_t>((end - start + page - 1) / page * page);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) ThrowInputError(path, ": cannot open for reading: ", std::strerror(errno));
  void* base = ::mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE, fd, static_cast<off_t>(start));
  const int err = errno;
  ::close(fd);  // the mapping keeps the file
  if (base == MAP_FAILED) {
    if (err == ENOMEM) ThrowOutOfMemory("mapping " + std::to_string(bytes) + " bytes of " + path);
    ThrowInputError(path, ": cannot map ", bytes, " bytes at offset ", start, ": ", std::strerror(err));
  }
  void* at = static_cast<char*>(base) + (offset - start);
  return std::shared_ptr<void>(at, Unmap{base, bytes});
}

bool IsMappedBuffer(const std::shared_ptr<void>& buffer) { return std::get_deleter<Unmap>(buffer) != nullptr; }

void DropResidentPages(const std::shared_ptr<void>& buffer) {
  if (const Unmap* u = std::get_deleter<Unmap>(buffer)) ::madvise(u->base, u->bytes, MADV_DONTNEED);
}

}  // namespace ptq
