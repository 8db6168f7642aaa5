// This process's memory, as Linux reports it (/proc/self/status): per-stage peaks for progress lines and
// reports, and the out-of-memory error that says where memory ran out and how much was in use.
#pragma once

#include <cstdint>
#include <string>

namespace ptq {

// Resident set size now (VmRSS) and its peak (VmHWM) since the process started or since the last
// ResetPeakRss, in bytes; -1 where /proc is not available. Resident pages of mapped files count.
int64_t CurrentRssBytes();
int64_t PeakRssBytes();

// Starts a new peak: the next PeakRssBytes covers only what follows (writes "5" to /proc/self/clear_refs,
// Linux 4.0+). Returns false where that is refused; PeakRssBytes then stays the whole process's.
bool ResetPeakRss();

// The address-space limit (RLIMIT_AS) in bytes, or -1 when there is none.
int64_t AddressSpaceLimit();

// What the process is doing, named in out-of-memory errors ("calibration", "rewrite", ...). Set by the
// command from its main thread; "" when unset.
void SetMemoryStage(const std::string& stage);
std::string MemoryStage();

// "out of memory during <stage> (<what>): 3.21 GB resident, peak 3.40 GB, address space 3.98 GB of its
// limit of 4.00 GB" (the last part only under an RLIMIT_AS limit); `what` may be empty.
std::string OutOfMemoryMessage(const std::string& what);

// Throws the out-of-memory error: an input error (exit code 2) whose message is OutOfMemoryMessage(what).
[[noreturn]] void ThrowOutOfMemory(const std::string& what);

// Bytes as gigabytes with two decimals ("3.21 GB").
std::string FormatGigabytes(int64_t bytes);

}  // namespace ptq
