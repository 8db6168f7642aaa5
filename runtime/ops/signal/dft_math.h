// The discrete Fourier transform shared by DFT and STFT: a direct O(n^2) evaluation in double with
// an exact twiddle table (k * n reduced modulo n before the angle is taken).
#pragma once

#include <complex>
#include <cstdint>
#include <vector>

namespace ptq {

// y[k] = sum_{j < len} x[j] e^(-+2 pi i k j / len) for k < bins, x zero-padded or truncated to len;
// the sign is + for the inverse, which also divides by len. REQUIRES: len >= 1, bins <= len.
void DiscreteFourier(const std::vector<std::complex<double>>& x, int64_t len, int64_t bins, bool inverse,
                     std::vector<std::complex<double>>* y);

}  // namespace ptq
