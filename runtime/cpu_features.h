// Which optional x86 instruction sets this CPU offers, detected once at run time, for kernel dispatch.
#pragma once

namespace ptq {

// Each flag is true only when the CPU (and the OS, for the wider registers) supports every listed
// extension, so a kernel compiled for them may run. All false on non-x86 builds.
struct CpuFeatures {
  bool avx2_fma = false;     // AVX2 and FMA3
  bool avx512f = false;      // AVX-512 Foundation
  bool avx512_vnni = false;  // AVX-512 VNNI and VL (vpdpbusd on zmm, and on ymm); implies nothing else
  bool avx_vnni = false;     // AVX-VNNI (vpdpbusd on ymm, VEX encoded)
};

// The environment variable PTQ_CPU overrides detection:
//   unset, "" or "native": use what the CPU offers;
//   "baseline": all flags false, so every kernel takes its portable path (baseline x86-64 / Eigen);
//   "avx2": AVX2+FMA only (as the CPU offers), no AVX-512 or VNNI: the int8 kernels use vpmaddwd.
// Any other value is ignored with a warning on stderr.
constexpr const char* kCpuEnvVar = "PTQ_CPU";

// The features of this CPU with PTQ_CPU applied, detected on the first call and cached for the process.
const CpuFeatures& GetCpuFeatures();

// Detects afresh (CPU and PTQ_CPU), without caching; GetCpuFeatures() is this, memoised. For tests.
CpuFeatures DetectCpuFeatures();

// detected, overridden by a PTQ_CPU value (nullptr when unset) as documented above. Sets *known
// (when non-null) to whether the value was recognised.
CpuFeatures ApplyCpuOverride(const CpuFeatures& detected, const char* ptq_cpu, bool* known = nullptr);

}  // namespace ptq
