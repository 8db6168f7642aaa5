// Kernel list of the nn family: one line per op.
#include "runtime/op_registry.h"
#include "runtime/ops/average_pool.h"
#include "runtime/ops/conv.h"
#include "runtime/ops/conv_transpose.h"
#include "runtime/ops/det.h"
#include "runtime/ops/einsum.h"
#include "runtime/ops/gemm.h"
#include "runtime/ops/global_average_pool.h"
#include "runtime/ops/global_max_pool.h"
#include "runtime/ops/grid_sample.h"
#include "runtime/ops/gru.h"
#include "runtime/ops/lstm.h"
#include "runtime/ops/matmul.h"
#include "runtime/ops/max_pool.h"
#include "runtime/ops/max_unpool.h"
#include "runtime/ops/non_max_suppression.h"
#include "runtime/ops/rnn.h"
#include "runtime/ops/roi_align.h"

namespace ptq {

void RegisterNnOps(OpRegistry& r) {
  r.Add({"", "MatMul", 1, 21, MakeMatMul});
  r.Add({"", "Gemm", 1, 21, MakeGemm});
  r.Add({"", "Conv", 1, 21, MakeConv});
  r.Add({"", "ConvTranspose", 1, 21, MakeConvTranspose});
  r.Add({"", "MaxPool", 1, 21, MakeMaxPool});
  r.Add({"", "AveragePool", 1, 21, MakeAveragePool});
  r.Add({"", "GlobalAveragePool", 1, 21, MakeGlobalAveragePool});
  r.Add({"", "GlobalMaxPool", 1, 21, MakeGlobalMaxPool});
  r.Add({"", "MaxUnpool", 9, 21, MakeMaxUnpool});
  r.Add({"", "Einsum", 12, 21, MakeEinsum});
  r.Add({"", "Det", 11, 21, MakeDet});
  r.Add({"", "NonMaxSuppression", 10, 21, MakeNonMaxSuppression});
  r.Add({"", "RoiAlign", 10, 21, MakeRoiAlign});
  r.Add({"", "GridSample", 16, 21, MakeGridSample});
  r.Add({"", "RNN", 7, 21, MakeRNN});
  r.Add({"", "GRU", 7, 21, MakeGRU});
  r.Add({"", "LSTM", 7, 21, MakeLSTM});
}

}  // namespace ptq
