// LayerNormalization (opset 17): normalizes each row over the trailing axes from 'axis' to mean 0
// and variance 1, then applies Scale and the optional bias B.
#pragma once

#include <cstdint>
#include <memory>

#include "runtime/kernel.h"

namespace ptq {

// The kernel's float32 loop over `rows` contiguous rows of n values, scale and bias of n values:
//   mean = sum(x) / n;  inv_std_dev = 1 / sqrt(sum((x - mean)^2) / n + epsilon)
//   y = (x - mean) * inv_std_dev * scale + bias;  mean[r], inv_std_dev[r] per row.
// avx2 selects the AVX2 compilation (same results); REQUIRES for avx2: GetCpuFeatures().avx2_fma.
void LayerNormalizationRows(const float* x, int64_t rows, int64_t n, const float* scale, const float* bias,
                            float epsilon, float* y, float* mean, float* inv_std_dev, bool avx2);

std::unique_ptr<Kernel> MakeLayerNormalization(const KernelInit& init);

}  // namespace ptq
