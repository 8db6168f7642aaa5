// The trigonometric and hyperbolic unary ops beyond Sin and Cos: Y = f(X) element-wise on float types.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeTan(const KernelInit& init);    // tan
std::unique_ptr<Kernel> MakeAsin(const KernelInit& init);   // asin
std::unique_ptr<Kernel> MakeAcos(const KernelInit& init);   // acos
std::unique_ptr<Kernel> MakeAtan(const KernelInit& init);   // atan
std::unique_ptr<Kernel> MakeSinh(const KernelInit& init);   // sinh
std::unique_ptr<Kernel> MakeCosh(const KernelInit& init);   // cosh
std::unique_ptr<Kernel> MakeAsinh(const KernelInit& init);  // asinh
std::unique_ptr<Kernel> MakeAcosh(const KernelInit& init);  // acosh
std::unique_ptr<Kernel> MakeAtanh(const KernelInit& init);  // atanh

}  // namespace ptq
