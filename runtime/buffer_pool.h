// A pool of tensor buffers, so that repeated runs of a model reuse their buffers instead of going through
// malloc's bins (a fifth of a small int8 ViT run, measured with perf), and reuse memory that is still in
// cache: a buffer is placed at the lowest free address that holds it (first fit over coalesced free
// blocks), so that a tensor takes the place of tensors freed just before it, whatever their sizes, as
// ONNX Runtime's memory pattern places its tensors. MobileNetV2's activations at batch 1 then span 7 MB
// per run instead of 18 MB (one buffer per distinct size; 6 MB are alive at most), and more stay in cache.
#pragma once

#include <cstddef>

namespace ptq {

// A 64-byte aligned buffer of `bytes` bytes (a multiple of 64), or nullptr when the allocation fails.
// Thread-safe. Buffers of at most kMaxRegionBufferBytes come from regions of kRegionBytes (or the
// buffer's size, if larger) mapped on demand and advised for transparent huge pages, so that a model's
// first run does not take a page fault per 4 KiB of its buffers (about 13 us each on a VM: 3 ms of the
// first run of the digits ViT at batch 8); larger ones from aligned_alloc.
void* AcquireBuffer(size_t bytes);

// Gives back a buffer from AcquireBuffer(bytes): its bytes are free for the next AcquireBuffer (regions
// stay mapped). Thread-safe. Builds with AddressSanitizer never pool (use after free stays detectable).
void ReleaseBuffer(void* buffer, size_t bytes);

// Gives the pool's free memory back to the system: regions with no buffer in use are unmapped, the free
// pages of the others released. Between the stages of a command, so that one stage's freed tensors do not
// stay resident through the next. Thread-safe.
void ReleaseCachedBuffers();

// Under AddressSanitizer (gcc's or clang's) every buffer is freed at once, so that a use after free is
// still reported: nothing is pooled.
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

// Regions are mapped this large (virtual memory: pages take memory when first touched).
constexpr size_t kRegionBytes = size_t{64} << 20;
// Buffers larger than this come from aligned_alloc and go back to it.
constexpr size_t kMaxRegionBufferBytes = size_t{1} << 30;
// Regions, and buffers from aligned_alloc from this size on, are aligned to it and advised for
// transparent huge pages (one fault per 2 MiB instead of per 4 KiB where the kernel allows it).
constexpr size_t kHugePageBytes = size_t{2} << 20;

}  // namespace ptq
