// The kernel shared by the Reduce* ops: reduces the given axes of a tensor with one of the
// reductions below; each Reduce op's file selects its kind.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

// Reductions over the set S of values on the reduced axes (n = |S|). On an empty set (a reduced
// axis of size 0) each yields the value of its formula on no values: Sum, L1, L2, SumSquare 0;
// Prod 1; Max -inf (the lowest value for integers); Min +inf (the highest); LogSum and
// LogSumExp -inf; Mean NaN (0 for integers).
enum class ReduceKind {
  kSum,        // sum(S)
  kMean,       // sum(S) / n (integer division for integer types)
  kMax,        // max(S)
  kMin,        // min(S)
  kProd,       // prod(S)
  kL1,         // sum(|s|)
  kL2,         // sqrt(sum(s^2))
  kSumSquare,  // sum(s^2)
  kLogSum,     // log(sum(S))
  kLogSumExp,  // log(sum(e^s)), computed as m + log(sum(e^(s - m))) with m = max(S)
};

// Axes come from attribute 'axes' (before opset 13 for ReduceSum, 18 for the others) or input 1
// 'axes' (from then on). keepdims (default 1) keeps reduced axes as size 1. Empty axes reduce every
// axis, unless noop_with_empty_axes = 1: then no axis is reduced and each output element is the
// reduction of the single input element at its position (so ReduceSumSquare squares, ReduceL1
// takes |x|, ReduceLogSum takes log x).
std::unique_ptr<Kernel> MakeReduceKernel(const KernelInit& init, ReduceKind kind);

}  // namespace ptq
