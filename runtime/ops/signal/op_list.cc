// Kernel list of the signal ops: one line per op.
#include "runtime/op_registry.h"
#include "runtime/ops/signal/dft.h"
#include "runtime/ops/signal/mel_weight_matrix.h"
#include "runtime/ops/signal/stft.h"
#include "runtime/ops/signal/window.h"

namespace ptq {

void RegisterSignalOps(OpRegistry& r) {
  r.Add({"", "HannWindow", 17, 21, MakeHannWindow});
  r.Add({"", "HammingWindow", 17, 21, MakeHammingWindow});
  r.Add({"", "BlackmanWindow", 17, 21, MakeBlackmanWindow});
  r.Add({"", "DFT", 17, 19, MakeDFT});
  r.Add({"", "STFT", 17, 21, MakeSTFT});
  r.Add({"", "MelWeightMatrix", 17, 21, MakeMelWeightMatrix});
}

}  // namespace ptq
