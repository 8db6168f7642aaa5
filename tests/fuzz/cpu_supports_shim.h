// Fuzz build only (forced include for runtime/cpu_features.cc): clang 14 rejects
// __builtin_cpu_supports("avxvnni"), so every feature reads as absent and the portable kernels run.
#pragma once

static inline int PtqFuzzCpuSupports(const char*) { return 0; }
#define __builtin_cpu_supports(feature) PtqFuzzCpuSupports(feature)
