// Run-time CPU feature detection with __builtin_cpu_supports, and the PTQ_CPU override.
#include "runtime/cpu_features.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ptq {
namespace {

// What the hardware and OS offer, ignoring PTQ_CPU.
CpuFeatures DetectHardware() {
  CpuFeatures f;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  f.avx2_fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  f.avx512f = __builtin_cpu_supports("avx512f");
  f.avx512_vnni = __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512vl");
  f.avx_vnni = __builtin_cpu_supports("avxvnni");
#endif
  return f;
}

}  // namespace

CpuFeatures ApplyCpuOverride(const CpuFeatures& detected, const char* ptq_cpu, bool* known) {
  if (known) *known = true;
  if (ptq_cpu == nullptr || ptq_cpu[0] == '\0' || std::strcmp(ptq_cpu, "native") == 0) return detected;
  if (std::strcmp(ptq_cpu, "baseline") == 0) return CpuFeatures{};
  if (std::strcmp(ptq_cpu, "avx2") == 0) {  // AVX2 and FMA only, when the CPU has them
    CpuFeatures f;
    f.avx2_fma = detected.avx2_fma;
    return f;
  }
  if (known) *known = false;
  return detected;
}

CpuFeatures DetectCpuFeatures() {
  const char* value = std::getenv(kCpuEnvVar);
  bool known = true;
  const CpuFeatures f = ApplyCpuOverride(DetectHardware(), value, &known);
  if (!known) {
    std::fprintf(stderr, "warning: ignoring %s=%s (expected 'baseline', 'avx2' or 'native')\n", kCpuEnvVar, value);
  }
  return f;
}

const CpuFeatures& GetCpuFeatures() {
  static const CpuFeatures features = DetectCpuFeatures();
  return features;
}

}  // namespace ptq
