// Read-only memory maps of byte ranges of files: external data in the page cache instead of a copy.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace ptq {

// Vector kernels may read this many bytes past the end of a tensor (tensor.cc pads its buffers so).
inline constexpr int64_t kTensorOverreadBytes = 64;

// Whether `length` bytes at `offset` of a file of `file_size` bytes can be mapped with kTensorOverreadBytes
// readable past their end (within the file's last page, which the system fills with zeros past its end).
bool CanMapWithOverread(int64_t offset, int64_t length, int64_t file_size);

// Maps `length` (> 0) bytes of `path` from `offset` read-only (PROT_READ, MAP_PRIVATE; the window
// widened to whole pages and kTensorOverreadBytes past the end). The pointer is at byte `offset`; the
// pages stay mapped while a copy of the shared_ptr lives. The same range of the same file mapped again
// meanwhile gets the same mapping (its pages are resident once). Throws an input error naming `path` when it
// cannot be opened or mapped, the out-of-memory error when the address space is exhausted.
// REQUIRES: CanMapWithOverread(offset, length, size of the file). The file must not shrink while mapped.
std::shared_ptr<void> MapFileRange(const std::string& path, int64_t offset, int64_t length);

// Whether `buffer` came from MapFileRange.
bool IsMappedBuffer(const std::shared_ptr<void>& buffer);

// Lets the system take back this process's resident pages of a mapped buffer (madvise MADV_DONTNEED):
// a later access reads them again from the page cache or the file. No-op for other buffers.
void DropResidentPages(const std::shared_ptr<void>& buffer);

}  // namespace ptq
