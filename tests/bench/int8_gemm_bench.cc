// Micro-benchmark of Int8Gemm: int8 GOPS (2 * M * N * K per product) for transformer-sized shapes and MobileNetV2's
// shallow 1x1 convolutions (K = 16 and 24: the requantization then costs as much as the products), with int32
// output and with fused requantization to uint8, per instruction set and thread count.
// Usage: ptq_int8_gemm_bench [seconds_per_case (default 0.5)] [threads list, e.g. 1,2 (default 1)]
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/kernels/int8_gemm/int8_gemm.h"

namespace {

struct Shape {
  int64_t M, K, N;
};

// Median seconds per call of f over repeated batches filling about `seconds`.
template <class F>
double MedianSeconds(F&& f, double seconds) {
  using Clock = std::chrono::steady_clock;
  f();  // warm-up: page in buffers, fill caches
  std::vector<double> samples;
  const auto start = Clock::now();
  while (samples.size() < 5 || std::chrono::duration<double>(Clock::now() - start).count() < seconds) {
    const auto t0 = Clock::now();
    f();
    samples.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    if (samples.size() >= 100000) break;
  }
  std::nth_element(samples.begin(), samples.begin() + samples.size() / 2, samples.end());
  return samples[samples.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ptq;
  const double seconds = argc > 1 ? std::atof(argv[1]) : 0.5;
  std::vector<int> thread_counts;
  std::stringstream list(argc > 2 ? argv[2] : "1");
  for (std::string item; std::getline(list, item, ',');) thread_counts.push_back(std::atoi(item.c_str()));
  const Shape shapes[] = {{128, 768, 768}, {128, 768, 3072}, {128, 3072, 768}, {1, 768, 768}, {1, 768, 3072},
                          {12544, 16, 96}, {3136, 24, 144}};
  std::mt19937 rng(1);
  std::uniform_int_distribution<int> byte(0, 255);
  std::printf("%-12s %-16s %7s %14s %14s\n", "isa", "M x K x N", "threads", "GOPS int32", "GOPS requant");
  for (Int8Isa isa : {Int8Isa::kAvx512Vnni, Int8Isa::kAvxVnni, Int8Isa::kAvx2, Int8Isa::kScalar}) {
    if (!Int8IsaAvailable(isa)) continue;
    for (const Shape& s : shapes) {
      std::vector<uint8_t> a(static_cast<size_t>(s.M * s.K)), b(static_cast<size_t>(s.K * s.N));
      for (auto& v : a) v = static_cast<uint8_t>(byte(rng));
      for (auto& v : b) v = static_cast<uint8_t>(byte(rng));
      const std::vector<int32_t> b_zp(static_cast<size_t>(s.N), 0);
      const std::vector<float> multiplier(static_cast<size_t>(s.N), 1e-4f);
      const std::vector<int32_t> bias(static_cast<size_t>(s.N), 17);
      PackedInt8B packed;
      packed.Pack(b.data(), true, s.K, s.N, s.N, false, b_zp.data(), isa);
      const int32_t a_zp = 3;
      const Int8GemmA in{s.M, a.data(), false, s.K, &a_zp, false};
      std::vector<int32_t> c32(static_cast<size_t>(s.M * s.N));
      std::vector<uint8_t> c8(static_cast<size_t>(s.M * s.N));
      const Int8GemmOut out32{Int8Output::kInt32, c32.data(), s.N, nullptr, nullptr, 0};
      const Int8GemmOut out8{Int8Output::kUint8, c8.data(), s.N, bias.data(), multiplier.data(), 128};
      const double ops = 2.0 * static_cast<double>(s.M * s.N * s.K);
      for (int threads : thread_counts) {
        omp_set_num_threads(threads);
        const double t32 = MedianSeconds([&] { Int8Gemm(in, packed, out32); }, seconds);
        const double t8 = MedianSeconds([&] { Int8Gemm(in, packed, out8); }, seconds);
        const std::string shape =
            std::to_string(s.M) + "x" + std::to_string(s.K) + "x" + std::to_string(s.N);
        std::printf("%-12s %-16s %7d %14.1f %14.1f\n", Int8IsaName(isa), shape.c_str(), threads, ops / t32 * 1e-9,
                    ops / t8 * 1e-9);
        std::fflush(stdout);
      }
    }
  }
  return 0;
}
