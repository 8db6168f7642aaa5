// Fuzz entry points: each feeds the bytes of one file a user could hand ptq to the code that reads it.
#pragma once

#include <string>
#include <vector>

namespace ptq::fuzz {

// An entry returns normally when its input was read or refused with a ptq::Error (of any kind); any
// other exception escapes, and a crash, leak, hang or sanitizer report is a bug. The libFuzzer targets
// (fuzz_main.cc, one executable per entry) and the regression test (tests/fuzz_regressions/) call the
// same functions. Files an entry needs (external data, a folder of samples) live in a private temporary
// folder made on first use and removed at exit.
struct Target {
  const char* name;  // the executable is fuzz_<name>; regression inputs live in tests/data/fuzz_regressions/<name>/
  void (*run)(const std::string& bytes);
};

// model_load, npy, npz, tensor_proto, config, calibration_table, rewrite.
const std::vector<Target>& Targets();
const Target* FindTarget(const std::string& name);  // nullptr when unknown

// The limits every entry runs under (MaxTensorBytes 64 MiB, MaxModelBytes 256 MiB), so that each input
// runs in well under a second and 2 GiB; the regression test restores the previous limits afterwards.
void SetFuzzLimits();

// The folder holding the model of model_load, rewrite and tensor_proto: weights.bin (4096 bytes),
// sub/nested.bin (256 bytes), link_in.bin -> weights.bin (stays inside), link_out.bin -> ../outside.bin
// and up -> .. (both lead out). Seeds reference these names.
const std::string& ModelFolder();

}  // namespace ptq::fuzz
