// Kernel list of the rnn ops: one line per op.
#include "runtime/op_registry.h"
#include "runtime/ops/rnn/gru.h"
#include "runtime/ops/rnn/lstm.h"
#include "runtime/ops/rnn/rnn.h"

namespace ptq {

void RegisterRnnOps(OpRegistry& r) {
  r.Add({"", "RNN", 7, 21, MakeRNN});
  r.Add({"", "GRU", 7, 21, MakeGRU});
  r.Add({"", "LSTM", 7, 21, MakeLSTM});
}

}  // namespace ptq
