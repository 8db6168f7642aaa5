// libFuzzer driver: one executable per entry of fuzz_entries.h, named at compile time by PTQ_FUZZ_TARGET.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tests/fuzz/fuzz_entries.h"

namespace {
const ptq::fuzz::Target* g_target = nullptr;
}

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  g_target = ptq::fuzz::FindTarget(PTQ_FUZZ_TARGET);
  if (!g_target) {
    std::fprintf(stderr, "unknown fuzz target %s\n", PTQ_FUZZ_TARGET);
    std::abort();
  }
  ptq::fuzz::SetFuzzLimits();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  g_target->run(std::string(reinterpret_cast<const char*>(data), size));
  return 0;
}
