// OneHot kernel. indices (any numeric type, fractions truncated), depth (one numeric value >= 0),
// values = [off_value, on_value]; the output has the values' type and indices' shape with an axis of
// size depth inserted at `axis` (default -1, the new last axis):
//   out[..., j, ...] = j == index ? on_value : off_value,  index in [-depth, depth) (negative + depth)
// An index outside that range gives a row of off_value, as the spec says.
#include "runtime/ops/tensor/one_hot.h"

#include <cmath>
#include <cstring>

#include "runtime/ops/math/elementwise.h"
#include "runtime/shape_util.h"

namespace ptq {
namespace {

class OneHot : public Kernel {
 public:
  explicit OneHot(const KernelInit& init) : axis_(init.attrs->GetInt("axis", -1)) {}

  void Run(KernelContext& ctx) override {
    const Tensor& indices = ctx.required_input(0);
    const Tensor& depth_t = ctx.required_input(1);
    const Tensor& values = ctx.required_input(2);
    PTQ_ENFORCE(depth_t.size() == 1, "input 'depth' must have one element, has shape ", ShapeToString(depth_t.shape()));
    PTQ_ENFORCE(values.size() == 2, "input 'values' must have two elements [off, on], has shape ",
                ShapeToString(values.shape()));
    std::vector<double> depth_v;
    ReadAsDouble(depth_t, "depth", &depth_v);
    PTQ_ENFORCE(std::isfinite(depth_v[0]) && depth_v[0] >= 0 && depth_v[0] < 9.2e18, "input 'depth' is ", depth_v[0],
                "; it must be >= 0");
    const int64_t depth = static_cast<int64_t>(depth_v[0]);
    const int64_t out_rank = indices.rank() + 1;
    PTQ_ENFORCE(axis_ >= -out_rank && axis_ < out_rank, "attribute 'axis' is ", axis_,
                ", out of range for output rank ", out_rank);
    const int64_t axis = axis_ < 0 ? axis_ + out_rank : axis_;
    Shape shape = indices.shape();
    shape.insert(shape.begin() + axis, depth);
    Tensor out = Tensor::Uninitialized(values.dtype(), shape);
    if (out.size() == 0) {
      ctx.outputs[0] = std::move(out);
      return;
    }
    std::vector<double> idx;
    ReadAsDouble(indices, "indices", &idx);
    const size_t es = ElementSize(values.dtype());
    const char* off = static_cast<const char*>(values.raw());
    const char* on = off + es;
    char* dst = static_cast<char*>(out.raw());
    const int64_t outer = SizeOfRange(indices.shape(), 0, axis);
    const int64_t inner = SizeOfRange(indices.shape(), axis, indices.rank());
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t j = 0; j < depth; ++j) {
        for (int64_t i = 0; i < inner; ++i) {
          const double v = std::trunc(idx[static_cast<size_t>(o * inner + i)]);
          const bool hit = v == static_cast<double>(j) || v == static_cast<double>(j - depth);
          std::memcpy(dst + static_cast<size_t>((o * depth + j) * inner + i) * es, hit ? on : off, es);
        }
      }
    }
    ctx.outputs[0] = std::move(out);
  }

 private:
  // All elements of a numeric input as double (the index and depth types are any numeric type).
  static void ReadAsDouble(const Tensor& t, const char* name, std::vector<double>* out) {
    DispatchType<kNumericTypes>(t.dtype(), "OneHot", name, [&](auto e) {
      using E = decltype(e);
      const auto* p = t.data<typename E::Storage>();
      out->resize(static_cast<size_t>(t.size()));
      for (int64_t i = 0; i < t.size(); ++i) (*out)[static_cast<size_t>(i)] = static_cast<double>(E::Load(p[i]));
    });
  }

  int64_t axis_;
};

}  // namespace

std::unique_ptr<Kernel> MakeOneHot(const KernelInit& init) { return MakeKernel<OneHot>(init); }

}  // namespace ptq
