// Kernel list of the math ops: one line per op.
#include "runtime/op_registry.h"
#include "runtime/ops/math/abs.h"
#include "runtime/ops/math/activation.h"
#include "runtime/ops/math/add.h"
#include "runtime/ops/math/and.h"
#include "runtime/ops/math/bit_shift.h"
#include "runtime/ops/math/cast.h"
#include "runtime/ops/math/cast_like.h"
#include "runtime/ops/math/ceil.h"
#include "runtime/ops/math/clip.h"
#include "runtime/ops/math/cos.h"
#include "runtime/ops/math/cum_sum.h"
#include "runtime/ops/math/det.h"
#include "runtime/ops/math/div.h"
#include "runtime/ops/math/einsum.h"
#include "runtime/ops/math/elementwise_chain.h"
#include "runtime/ops/math/equal.h"
#include "runtime/ops/math/erf.h"
#include "runtime/ops/math/exp.h"
#include "runtime/ops/math/float_class.h"
#include "runtime/ops/math/floor.h"
#include "runtime/ops/math/gelu.h"
#include "runtime/ops/math/gemm.h"
#include "runtime/ops/math/greater.h"
#include "runtime/ops/math/greater_or_equal.h"
#include "runtime/ops/math/hard_sigmoid.h"
#include "runtime/ops/math/hard_swish.h"
#include "runtime/ops/math/hardmax.h"
#include "runtime/ops/math/leaky_relu.h"
#include "runtime/ops/math/less.h"
#include "runtime/ops/math/less_or_equal.h"
#include "runtime/ops/math/log.h"
#include "runtime/ops/math/log_softmax.h"
#include "runtime/ops/math/matmul.h"
#include "runtime/ops/math/max.h"
#include "runtime/ops/math/mean.h"
#include "runtime/ops/math/min.h"
#include "runtime/ops/math/mod.h"
#include "runtime/ops/math/mul.h"
#include "runtime/ops/math/neg.h"
#include "runtime/ops/math/not.h"
#include "runtime/ops/math/or.h"
#include "runtime/ops/math/pow.h"
#include "runtime/ops/math/prelu.h"
#include "runtime/ops/math/reciprocal.h"
#include "runtime/ops/math/relu.h"
#include "runtime/ops/math/round.h"
#include "runtime/ops/math/scale_residual.h"
#include "runtime/ops/math/sigmoid.h"
#include "runtime/ops/math/silu.h"
#include "runtime/ops/math/sign.h"
#include "runtime/ops/math/sin.h"
#include "runtime/ops/math/softmax.h"
#include "runtime/ops/math/softplus.h"
#include "runtime/ops/math/sqrt.h"
#include "runtime/ops/math/sub.h"
#include "runtime/ops/math/sum.h"
#include "runtime/ops/math/tanh.h"
#include "runtime/ops/math/top_k.h"
#include "runtime/ops/math/unary_math.h"
#include "runtime/ops/math/where.h"
#include "runtime/ops/math/xor.h"

namespace ptq {

void RegisterMathOps(OpRegistry& r) {
  r.Add({"", "Abs", 1, 21, MakeAbs});
  r.Add({"", "Add", 1, 21, MakeAdd});
  r.Add({"", "Sub", 1, 21, MakeSub});
  r.Add({"", "Mul", 1, 21, MakeMul});
  r.Add({"", "Div", 1, 21, MakeDiv});
  r.Add({"", "Pow", 1, 21, MakePow});
  r.Add({"", "Neg", 1, 21, MakeNeg});
  r.Add({"", "Reciprocal", 1, 21, MakeReciprocal});
  r.Add({"", "Sqrt", 1, 21, MakeSqrt});
  r.Add({"", "Exp", 1, 21, MakeExp});
  r.Add({"", "Log", 1, 21, MakeLog});
  r.Add({"", "Erf", 9, 21, MakeErf});
  r.Add({"", "Sin", 7, 21, MakeSin});
  r.Add({"", "Cos", 7, 21, MakeCos});
  r.Add({"", "Tan", 7, 21, MakeTan});
  r.Add({"", "Asin", 7, 21, MakeAsin});
  r.Add({"", "Acos", 7, 21, MakeAcos});
  r.Add({"", "Atan", 7, 21, MakeAtan});
  r.Add({"", "Sinh", 9, 21, MakeSinh});
  r.Add({"", "Cosh", 9, 21, MakeCosh});
  r.Add({"", "Asinh", 9, 21, MakeAsinh});
  r.Add({"", "Acosh", 9, 21, MakeAcosh});
  r.Add({"", "Atanh", 9, 21, MakeAtanh});
  r.Add({"", "Tanh", 1, 21, MakeTanh});
  r.Add({"", "Sigmoid", 1, 21, MakeSigmoid});
  r.Add({"", "Softplus", 1, 21, MakeSoftplus});
  r.Add({"", "Relu", 1, 21, MakeRelu});
  r.Add({"", "LeakyRelu", 1, 21, MakeLeakyRelu});
  r.Add({"", "HardSigmoid", 1, 21, MakeHardSigmoid});
  r.Add({"", "HardSwish", 14, 21, MakeHardSwish});
  r.Add({"", "PRelu", 1, 21, MakePRelu});
  r.Add({"", "Elu", 1, 21, MakeElu});
  r.Add({"", "Selu", 1, 21, MakeSelu});
  r.Add({"", "Celu", 12, 21, MakeCelu});
  r.Add({"", "ThresholdedRelu", 10, 21, MakeThresholdedRelu});
  r.Add({"", "Shrink", 9, 21, MakeShrink});
  r.Add({"", "Softsign", 1, 21, MakeSoftsign});
  r.Add({"", "Ceil", 1, 21, MakeCeil});
  r.Add({"", "Floor", 1, 21, MakeFloor});
  r.Add({"", "Round", 11, 21, MakeRound});
  r.Add({"", "Sign", 9, 21, MakeSign});
  r.Add({"", "Clip", 1, 21, MakeClip});
  r.Add({"", "Max", 1, 21, MakeMax});
  r.Add({"", "Min", 1, 21, MakeMin});
  r.Add({"", "Sum", 1, 21, MakeSum});
  r.Add({"", "Mean", 1, 21, MakeMean});
  r.Add({"", "Equal", 1, 21, MakeEqual});
  r.Add({"", "Greater", 1, 21, MakeGreater});
  r.Add({"", "GreaterOrEqual", 12, 21, MakeGreaterOrEqual});
  r.Add({"", "Less", 1, 21, MakeLess});
  r.Add({"", "LessOrEqual", 12, 21, MakeLessOrEqual});
  r.Add({"", "And", 1, 21, MakeAnd});
  r.Add({"", "Or", 1, 21, MakeOr});
  r.Add({"", "Xor", 1, 21, MakeXor});
  r.Add({"", "Not", 1, 21, MakeNot});
  r.Add({"", "BitShift", 11, 21, MakeBitShift});
  r.Add({"", "IsNaN", 9, 21, MakeIsNaN});
  r.Add({"", "IsInf", 10, 21, MakeIsInf});
  r.Add({"", "Where", 9, 21, MakeWhere});
  r.Add({"", "Cast", 1, 21, MakeCast});
  r.Add({"", "CastLike", 15, 21, MakeCastLike});
  r.Add({"", "Mod", 10, 21, MakeMod});
  r.Add({"", "Gelu", 20, 21, MakeGelu});
  // GELU written out op by op, as the session fuses it (runtime/float_fusion.h).
  r.Add({"ptq.fused", "Gelu", 1, 1, MakeGelu});
  r.Add({"ptq.fused", "Silu", 1, 1, MakeSilu});
  r.Add({"ptq.fused", "ElementwiseChain", 1, 1, MakeElementwiseChain});
  r.Add({"ptq.fused", "ScaleResidual", 1, 1, MakeScaleResidual});
  r.Add({"", "Softmax", 1, 21, MakeSoftmax});
  r.Add({"", "LogSoftmax", 1, 21, MakeLogSoftmax});
  r.Add({"", "Hardmax", 1, 21, MakeHardmax});
  r.Add({"", "TopK", 1, 21, MakeTopK});
  r.Add({"", "CumSum", 11, 21, MakeCumSum});
  r.Add({"", "MatMul", 1, 21, MakeMatMul});
  r.Add({"", "Gemm", 1, 21, MakeGemm});
  r.Add({"", "Einsum", 12, 21, MakeEinsum});
  r.Add({"", "Det", 11, 21, MakeDet});
}

}  // namespace ptq
