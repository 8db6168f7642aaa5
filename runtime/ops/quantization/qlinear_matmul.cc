// QLinearMatMul (opsets 10 and 21): integer matmul of a and b minus their zero points, requantized to y,
// on the int8 GEMM kernels (a constant b is packed once, when the session is prepared).
#include "runtime/ops/quantization/qlinear_matmul.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "runtime/error.h"
#include "runtime/ops/quantization/int8_matmul.h"
#include "runtime/kernels/int8_gemm/int_matmul_reference.h"
#include "runtime/quant_math.h"

namespace ptq {
namespace {

void CheckInt8OrUint8(const Tensor& t, const char* name) {
  PTQ_ENFORCE(t.dtype() == DataType::kUint8 || t.dtype() == DataType::kInt8, name, " must be uint8 or int8, got ",
              DataTypeName(t.dtype()));
}

void CheckZeroPointType(const Tensor& zero_point, const char* zp_name, const Tensor& x, const char* x_name) {
  PTQ_ENFORCE(zero_point.dtype() == x.dtype(), zp_name, " has type ", DataTypeName(zero_point.dtype()), " but ",
              x_name, " has type ", DataTypeName(x.dtype()), "; they must match");
}

// Scales are float32; opset 21 adds float16 and bfloat16.
void CheckScaleType(const Tensor& scale, const char* name, int opset) {
  const DataType t = scale.dtype();
  if (opset >= 21) {
    PTQ_ENFORCE(t == DataType::kFloat || t == DataType::kFloat16 || t == DataType::kBfloat16, name,
                " must be float32, float16 or bfloat16, got ", DataTypeName(t));
  } else {
    PTQ_ENFORCE(t == DataType::kFloat, name, " must be float32 at opset ", opset,
                " (float16 and bfloat16 need opset 21), got ", DataTypeName(t));
  }
}

void CheckPerTensor(const Tensor& t, const char* name) {
  PTQ_ENFORCE(t.size() == 1, name, " must hold one value (per tensor), got shape ", ShapeToString(t.shape()));
}

// y[i][m][n] = RequantizeValue(acc[i][m][n], RequantMultiplier(a_scale[m], b_scale[n], y_scale), y_zero_point)
// with a_scale taken for the matrix of a, and b_scale for the matrix of b, that output matrix i uses.
template <class TY>
void Requantize(const Tensor& acc, const std::vector<float>& a_scale, const std::vector<float>& b_scale,
                float y_scale, int32_t y_zero_point, const MatMulShape& s, Tensor& y) {
  const int32_t qmin = QuantMin(y.dtype());
  const int32_t qmax = QuantMax(y.dtype());
  const int32_t* in = acc.data<int32_t>();
  TY* out = y.data<TY>();
  for (size_t i = 0; i < s.a_of.size(); ++i) {
    const float* as = a_scale.data() + s.a_of[i] * s.M;
    const float* bs = b_scale.data() + s.b_of[i] * s.N;
    for (int64_t m = 0; m < s.M; ++m) {
      const int64_t row = (static_cast<int64_t>(i) * s.M + m) * s.N;
      for (int64_t n = 0; n < s.N; ++n) {
        const float multiplier = RequantMultiplier(as[m], bs[n], y_scale);
        out[row + n] = static_cast<TY>(RequantizeValue(in[row + n], multiplier, y_zero_point, qmin, qmax));
      }
    }
  }
}

class QLinearMatMulKernel : public Kernel {
 public:
  // A constant b with a constant b_zero_point is packed here, once.
  explicit QLinearMatMulKernel(const KernelInit& init) : opset_(init.opset) {
    const Tensor* b = init.const_inputs.size() > 5 ? init.const_inputs[3] : nullptr;
    const Tensor* zp = init.const_inputs.size() > 5 ? init.const_inputs[5] : nullptr;
    if (b == nullptr || zp == nullptr || b->rank() == 0 || zp->dtype() != b->dtype()) return;
    if (b->dtype() != DataType::kUint8 && b->dtype() != DataType::kInt8) return;
    try {
      packed_ = PackInt8Matrices(*b, GatherColumnParam<int32_t>(*zp, b->shape(), "b_zero_point"));
    } catch (const Error&) {
      // Malformed constants: Run reports them with the node's name.
    }
  }

  void Run(KernelContext& ctx) override {
    const Tensor& a = ctx.required_input(0);
    const Tensor& a_scale = ctx.required_input(1);
    const Tensor& a_zero_point = ctx.required_input(2);
    const Tensor& b = ctx.required_input(3);
    const Tensor& b_scale = ctx.required_input(4);
    const Tensor& b_zero_point = ctx.required_input(5);
    const Tensor& y_scale = ctx.required_input(6);
    const Tensor& y_zero_point = ctx.required_input(7);

    CheckInt8OrUint8(a, "a");
    CheckInt8OrUint8(b, "b");
    CheckInt8OrUint8(y_zero_point, "y_zero_point");
    CheckZeroPointType(a_zero_point, "a_zero_point", a, "a");
    CheckZeroPointType(b_zero_point, "b_zero_point", b, "b");
    CheckScaleType(a_scale, "a_scale", opset_);
    CheckScaleType(b_scale, "b_scale", opset_);
    CheckScaleType(y_scale, "y_scale", opset_);
    CheckPerTensor(y_scale, "y_scale");
    CheckPerTensor(y_zero_point, "y_zero_point");

    const MatMulShape shape = ComputeMatMulShape(a.shape(), b.shape(), "a", "b");
    const std::vector<int32_t> a_zp =
        GatherRowParam<int32_t>(a_zero_point, a.shape(), "a_zero_point");
    const std::vector<float> a_sc = GatherRowParam<float>(a_scale, a.shape(), "a_scale");
    const std::vector<int32_t> b_zp =
        GatherColumnParam<int32_t>(b_zero_point, b.shape(), "b_zero_point");
    const std::vector<float> b_sc =
        GatherColumnParam<float>(b_scale, b.shape(), "b_scale");

    const float y_sc = static_cast<float>(y_scale.GetAsDouble(0));
    const int32_t y_zp = static_cast<int32_t>(y_zero_point.GetAsDouble(0));
    const PackedInt8Matrices* packed =
        packed_ && packed_->b_shape == b.shape() && packed_->dtype == b.dtype() ? &*packed_ : nullptr;
    Tensor y = Tensor::Uninitialized(y_zero_point.dtype(), shape.output);
    if (std::all_of(a_sc.begin(), a_sc.end(), [&](float v) { return v == a_sc[0]; }) && !a_sc.empty()) {
      // One a_scale: the multiplier depends on the column alone, and the kernels requantize.
      std::vector<float> multiplier(b_sc.size());
      for (size_t j = 0; j < b_sc.size(); ++j) multiplier[j] = RequantMultiplier(a_sc[0], b_sc[j], y_sc);
      const Int8Output out = y.dtype() == DataType::kInt8 ? Int8Output::kInt8 : Int8Output::kUint8;
      Int8MatMul(a, a_zp, b, b_zp, packed, shape, out, multiplier.data(), y_zp, y);
    } else {
      Tensor acc = Tensor::Uninitialized(DataType::kInt32, shape.output);
      Int8MatMul(a, a_zp, b, b_zp, packed, shape, Int8Output::kInt32, nullptr, 0, acc);
      if (y.dtype() == DataType::kInt8) {
        Requantize<int8_t>(acc, a_sc, b_sc, y_sc, y_zp, shape, y);
      } else {
        Requantize<uint8_t>(acc, a_sc, b_sc, y_sc, y_zp, shape, y);
      }
    }
    ctx.outputs[0] = std::move(y);
  }

 private:
  int opset_;
  std::optional<PackedInt8Matrices> packed_;
};

}  // namespace

std::unique_ptr<Kernel> MakeQLinearMatMul(const KernelInit& init) { return MakeKernel<QLinearMatMulKernel>(init); }

}  // namespace ptq
