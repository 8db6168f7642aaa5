// The unary math family as a table: one line per op naming its <cmath> function; each runs through
// the generic UnaryKernel on float types (float16/bfloat16 computed in float32). Outside an op's
// domain the result is what <cmath> gives (NaN), as in numpy.
#include "runtime/ops/math/unary_math.h"

#include <cmath>

#include "runtime/ops/math/elementwise.h"

namespace ptq {

// Defines the op struct `Name`Op (y = std::fn(x)) and its factory Make`Name`.
#define PTQ_UNARY_MATH_OP(Name, fn) \
  namespace {                       \
  struct Name##Op {                 \
    template <class T>              \
    T operator()(T x) const {       \
      return std::fn(x);            \
    }                               \
  };                                \
  }                                 \
  std::unique_ptr<Kernel> Make##Name(const KernelInit& init) { return MakeUnaryKernel<kFloatTypes>(init, Name##Op{}); }

PTQ_UNARY_MATH_OP(Tan, tan)
PTQ_UNARY_MATH_OP(Asin, asin)
PTQ_UNARY_MATH_OP(Acos, acos)
PTQ_UNARY_MATH_OP(Atan, atan)
PTQ_UNARY_MATH_OP(Sinh, sinh)
PTQ_UNARY_MATH_OP(Cosh, cosh)
PTQ_UNARY_MATH_OP(Asinh, asinh)
PTQ_UNARY_MATH_OP(Acosh, acosh)
PTQ_UNARY_MATH_OP(Atanh, atanh)

#undef PTQ_UNARY_MATH_OP

}  // namespace ptq
