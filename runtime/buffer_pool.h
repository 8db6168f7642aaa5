// A cache of freed tensor buffers by size, so that repeated runs of a model reuse their buffers
// instead of going through malloc's bins (a fifth of a small int8 ViT run, measured with perf).
#pragma once

#include <cstddef>

namespace ptq {

// A 64-byte aligned buffer of `bytes` bytes (a multiple of 64): a cached one of that size when
// there is one, else a new one. Returns nullptr when the allocation fails. Thread-safe.
// New buffers of at most kMaxArenaBufferBytes are carved from 2 MiB chunks advised for transparent huge
// pages (up to kMaxArenaBytes in all), so that a model's first run does not take a page fault per 4 KiB
// of its buffers (about 13 us each on a VM: 3 ms of the first run of the digits ViT at batch 8).
void* AcquireBuffer(size_t bytes);

// Gives back a buffer from AcquireBuffer(bytes). It is cached for the next AcquireBuffer of the same
// size while the cache holds fewer than kMaxBuffersPerSize of that size and less than kMaxCachedBytes
// in all; otherwise freed. Buffers carved from the chunks are always kept for reuse (never freed).
// Thread-safe. Builds with AddressSanitizer never cache nor carve (use after free stays detectable).
void ReleaseBuffer(void* buffer, size_t bytes);

// Frees every cached buffer (the arena's chunks stay): between the stages of a command, so that one
// stage's freed tensors do not stay resident through the next. Thread-safe.
void ReleaseCachedBuffers();

// Under AddressSanitizer (gcc's or clang's) every buffer is freed at once, so that a use after free is
// still reported: nothing is cached or carved.
#if defined(__SANITIZE_ADDRESS__)
#define PTQ_ASAN_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PTQ_ASAN_BUILD 1
#endif
#endif
#ifdef PTQ_ASAN_BUILD
constexpr bool kBufferPoolEnabled = false;
#else
constexpr bool kBufferPoolEnabled = true;
#endif

constexpr size_t kMaxBuffersPerSize = 8;
// Large activations (a batch of 8 images at 640 x 640: 52 MB per tensor) are cached too: a new one costs
// a page fault per 4 KiB (170 ms for 52 MB on a VM), more than the op that fills it.
constexpr size_t kMaxCachedBytes = size_t{1} << 30;
// Buffers larger than this bypass the cache.
constexpr size_t kMaxPooledBufferBytes = size_t{1} << 30;
// New buffers from this size on are aligned to it and advised for transparent huge pages (one fault per
// 2 MiB instead of per 4 KiB where the kernel allows it).
constexpr size_t kHugePageBytes = size_t{2} << 20;
constexpr size_t kMaxArenaBufferBytes = size_t{1} << 20;
constexpr size_t kMaxArenaBytes = size_t{32} << 20;

}  // namespace ptq
