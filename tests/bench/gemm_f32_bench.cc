// Micro-benchmark of the float32 GEMM on packed weights and of channels-last im2row, for the layer shapes of
// ResNet-50 and MobileNetV2 at 224 x 224, batch 1: GMAC/s per layer (M output pixels, K taps x channels, N
// output channels), so a kernel change can be judged layer by layer before a model run.
// Usage: ptq_gemm_f32_bench [seconds_per_case (default 0.3)] [threads (default 1)] [layer name filter] [cold]
// (cold: caches evicted before every timed call)
#include <omp.h>

#include <algorithm>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "runtime/cpu_features.h"
#include "runtime/kernels/conv/im2row_nhwc.h"
#include "runtime/kernels/gemm_f32/gemm_f32_avx2.h"

namespace {

// One convolution layer, channels last, batch 1, group 1.
struct Layer {
  const char* name;
  int64_t H, W, C, M, kernel, stride, pad;
};

// The CPU time of the process in seconds: on a shared virtual machine, time the hypervisor gives to others
// (steal) is not counted, so figures vary less than wall time.
double CpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

// Writes 64 MiB, more than the caches hold: the next call reads its operands from memory, as a layer of a
// model does (the layer before it evicted its weights; its input may still be in L3).
void EvictCaches() {
  static std::vector<float> junk(size_t{16} << 20);
  for (size_t i = 0; i < junk.size(); i += 16) junk[i] += 1.0f;
}

// Median CPU seconds per call of f over repeated calls filling about `seconds` (divided by the thread count:
// with several threads, an estimate of wall time without steal); with `cold`, the caches are evicted
// before each call (not timed).
template <class F>
double MedianSeconds(F&& f, double seconds, int threads, bool cold) {
  f();  // warm-up
  std::vector<double> samples;
  double timed = 0;
  while (samples.size() < 5 || (timed / threads < seconds && !(cold && samples.size() >= 30))) {
    if (cold) EvictCaches();
    const double t0 = CpuSeconds();
    f();
    samples.push_back((CpuSeconds() - t0) / threads);
    timed += samples.back() * threads;
  }
  std::nth_element(samples.begin(), samples.begin() + samples.size() / 2, samples.end());
  return samples[samples.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ptq;
  const double seconds = argc > 1 ? std::atof(argv[1]) : 0.3;
  const int threads = argc > 2 ? std::atoi(argv[2]) : 1;
  const std::string filter = argc > 3 ? argv[3] : "";
  const bool cold = argc > 4 && std::string(argv[4]) == "cold";
  if (!GetCpuFeatures().avx2_fma) {
    std::printf("this CPU has no AVX2+FMA: the float GEMM benchmarked here does not run\n");
    return 0;
  }
  omp_set_num_threads(threads);
  const Layer layers[] = {
      {"resnet conv1 7x7/2", 224, 224, 3, 64, 7, 2, 3},  {"resnet l1 1x1 64-64", 56, 56, 64, 64, 1, 1, 0},
      {"resnet l1 3x3 64", 56, 56, 64, 64, 3, 1, 1},     {"resnet l1 1x1 64-256", 56, 56, 64, 256, 1, 1, 0},
      {"resnet l1 1x1 256-64", 56, 56, 256, 64, 1, 1, 0}, {"resnet l2 3x3 128", 28, 28, 128, 128, 3, 1, 1},
      {"resnet l3 3x3 256", 14, 14, 256, 256, 3, 1, 1},  {"resnet l3 1x1 256-1024", 14, 14, 256, 1024, 1, 1, 0},
      {"resnet l4 3x3 512", 7, 7, 512, 512, 3, 1, 1},    {"resnet l4 1x1 512-2048", 7, 7, 512, 2048, 1, 1, 0},
      {"mbv2 stem 3x3/2", 224, 224, 3, 32, 3, 2, 1},     {"mbv2 1x1 32-16", 112, 112, 32, 16, 1, 1, 0},
      {"mbv2 1x1 16-96", 112, 112, 16, 96, 1, 1, 0},     {"mbv2 1x1 144-24", 56, 56, 144, 24, 1, 1, 0},
      {"mbv2 1x1 24-144", 56, 56, 24, 144, 1, 1, 0},     {"mbv2 1x1 192-32", 28, 28, 192, 32, 1, 1, 0},
      {"mbv2 1x1 384-64", 14, 14, 384, 64, 1, 1, 0},     {"mbv2 1x1 960-160", 7, 7, 960, 160, 1, 1, 0},
      {"mbv2 1x1 320-1280", 7, 7, 320, 1280, 1, 1, 0},   {"regnet b8 1x1 320-320", 28, 56, 320, 320, 1, 1, 0},
      {"regnet b8 1x1 144-144", 56, 112, 144, 144, 1, 1, 0},
  };
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::printf("%-24s %7s %6s %6s %9s %9s %9s\n", "layer", "M", "K", "N", "gemm ms", "GMAC/s", "im2row ms");
  for (const Layer& l : layers) {
    if (std::string(l.name).find(filter) == std::string::npos) continue;
    const int64_t OH = (l.H + 2 * l.pad - l.kernel) / l.stride + 1, OW = (l.W + 2 * l.pad - l.kernel) / l.stride + 1;
    const int64_t M = OH * OW, K = l.kernel * l.kernel * l.C, N = l.M;
    std::vector<float> x(static_cast<size_t>(l.H * l.W * l.C)), w(static_cast<size_t>(K * N));
    std::vector<float> a(static_cast<size_t>(M * K)), y(static_cast<size_t>(M * N));
    for (float& v : x) v = dist(rng);
    for (float& v : w) v = dist(rng);
    SlidingWindow win;
    win.input = {l.H, l.W};
    win.output = {OH, OW};
    win.kernel = {l.kernel, l.kernel};
    win.strides = {l.stride, l.stride};
    win.dilations = {1, 1};
    win.pads_begin = {l.pad, l.pad};
    win.pads_end = {l.pad, l.pad};
    Im2RowNhwc(x.data(), l.C, 1, win, 0, OH, a.data());
    const PackedF32B packed = PackF32B(false, K, N, w.data(), N);
    const double gemm = MedianSeconds(
        [&] { GemmF32Avx2Packed(M, 1.0f, a.data(), K, packed, 0.0f, y.data(), N); }, seconds, threads, cold);
    const double im2row =
        MedianSeconds([&] { Im2RowNhwc(x.data(), l.C, 1, win, 0, OH, a.data()); }, seconds, threads, cold);
    std::printf("%-24s %7lld %6lld %6lld %9.3f %9.1f %9.3f\n", l.name, static_cast<long long>(M),
                static_cast<long long>(K), static_cast<long long>(N), gemm * 1e3, double(M * K * N) / gemm * 1e-9,
                im2row * 1e3);
  }
  return 0;
}
