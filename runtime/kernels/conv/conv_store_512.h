// StoreConv512: the AVX-512 direct convolutions' store of 16 outputs, the GEMM's epilogue on one zmm register.
#pragma once

#if defined(__x86_64__)
#include <immintrin.h>

namespace ptq {

// Stores at out: x + col_bias[0..15] (when col_bias is set), + sum[0..15] (when sum is set), then, when `clamp`,
// t < lo ? lo : t (vmaxps(lo, t)) and hi < t ? hi : t (vminps(hi, t)), NaN kept. The operations GemmF32Avx2Packed's
// epilogue (gemm_epilogue.h) performs on each output of its last K block, so the same bits; shared by
// ConvNhwcDirectF32's and GroupedConvPlanesF32's tiles.
inline __attribute__((always_inline, target("avx512f"))) void StoreConv512(__m512 x, const float* col_bias,
                                                                         const float* sum, bool clamp, __m512 lo,
                                                                         __m512 hi, float* out) {
  constexpr __mmask16 kAll = 0xFFFF;  // _mask_ forms: see Exp512 in silu_f32.cc
  if (col_bias != nullptr) x = _mm512_add_ps(x, _mm512_loadu_ps(col_bias));
  if (sum != nullptr) x = _mm512_add_ps(x, _mm512_loadu_ps(sum));
  if (clamp) {
    x = _mm512_mask_max_ps(x, kAll, lo, x);
    x = _mm512_mask_min_ps(x, kAll, hi, x);
  }
  _mm512_storeu_ps(out, x);
}

}  // namespace ptq

#endif
