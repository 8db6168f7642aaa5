// Pad: grows (negative pads crop) each axis; modes constant, reflect, edge and wrap.
#include "runtime/ops/tensor/pad.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/ops/tensor/copy_util.h"
#include "runtime/shape_util.h"

namespace ptq {
namespace {

enum class PadMode { kConstant, kReflect, kEdge, kWrap };

// Source index on one axis for output position o, or -1 for a constant-filled position. The
// axis keeps input [crop, crop + n) and adds `before` positions in front. With c = o - before:
//   constant: c in [0, n) ? c : fill;   edge: clamp(c, 0, n-1);   wrap: c mod n;
//   reflect: c mod 2(n-1), mirrored into [0, n) (numpy 'reflect', repeating for long pads).
std::vector<int64_t> AxisMap(PadMode mode, int64_t out_dim, int64_t before, int64_t crop, int64_t n) {
  std::vector<int64_t> map(static_cast<size_t>(out_dim));
  for (int64_t o = 0; o < out_dim; ++o) {
    const int64_t c = o - before;
    int64_t src = c;
    if (c < 0 || c >= n) {
      switch (mode) {
        case PadMode::kConstant: src = -1; break;
        case PadMode::kEdge: src = std::clamp<int64_t>(c, 0, n - 1); break;
        case PadMode::kWrap: src = (c % n + n) % n; break;
        case PadMode::kReflect: {
          const int64_t period = 2 * (n - 1);
          if (period == 0) {
            src = 0;
          } else {
            src = (c % period + period) % period;
            if (src >= n) src = period - src;
          }
        }
      }
    }
    map[static_cast<size_t>(o)] = src < 0 ? -1 : crop + src;
  }
  return map;
}

class Pad : public Kernel {
 public:
  // Opset 1: attribute 'paddings'; 2-10: attributes 'pads' and 'value'; 11+: inputs 'pads' and
  // 'constant_value'; 18+: input 'axes'. pads = [x1_begin, x2_begin, ..., x1_end, x2_end].
  explicit Pad(const KernelInit& init) : opset_(init.opset) {
    const std::string mode = init.attrs->GetString("mode", "constant");
    if (mode == "constant") {
      mode_ = PadMode::kConstant;
    } else if (mode == "reflect") {
      mode_ = PadMode::kReflect;
    } else if (mode == "edge") {
      mode_ = PadMode::kEdge;
    } else if (mode == "wrap") {
      mode_ = PadMode::kWrap;
    } else {
      ThrowInputError("attribute 'mode' is '", mode, "', expected constant, reflect, edge or wrap");
    }
    if (opset_ < 11) {
      pads_attr_ = init.attrs->RequireInts(opset_ < 2 ? "paddings" : "pads");
      value_attr_ = init.attrs->GetFloat("value", 0.0f);
    }
  }

  void Run(KernelContext& ctx) override {
    const Tensor& data = ctx.required_input(0);
    const int64_t rank = data.rank();
    const size_t es = ElementSize(data.dtype());
    std::vector<int64_t> pads = pads_attr_;
    unsigned char value[8] = {0};
    std::vector<int64_t> axes;
    if (opset_ < 11) {
      StoreScalar(data.dtype(), value_attr_, value);
    } else {
      pads = ctx.required_input(1).ToInt64Vector();
      if (const Tensor* v = ctx.input(2); v && v->size() > 0) {
        PTQ_ENFORCE(v->dtype() == data.dtype(), "input 'constant_value' has type ", DataTypeName(v->dtype()),
                    ", expected ", DataTypeName(data.dtype()));
        std::memcpy(value, v->raw(), es);
      }
      if (opset_ >= 18 && ctx.input(3)) axes = ctx.input(3)->ToInt64Vector();
    }
    if (axes.empty() && !(opset_ >= 18 && ctx.input(3))) {
      for (int64_t k = 0; k < rank; ++k) axes.push_back(k);
    }
    const size_t na = axes.size();
    PTQ_ENFORCE(pads.size() == 2 * na, "'pads' has ", pads.size(), " entries, expected ", 2 * na,
                " (begin and end for each of ", na, " axes)");
    std::vector<int64_t> before(static_cast<size_t>(rank), 0), after(static_cast<size_t>(rank), 0);
    for (size_t i = 0; i < na; ++i) {
      const size_t a = static_cast<size_t>(NormalizeAxis(axes[i], rank));
      before[a] = pads[i];
      after[a] = pads[i + na];
    }

    Shape out_shape(static_cast<size_t>(rank));
    std::vector<std::vector<int64_t>> maps(static_cast<size_t>(rank));
    for (size_t k = 0; k < out_shape.size(); ++k) {
      const int64_t dim = data.shape()[k];
      const int64_t crop = std::max<int64_t>(0, -before[k]);
      const int64_t n = dim - crop - std::max<int64_t>(0, -after[k]);
      out_shape[k] = dim + before[k] + after[k];
      PTQ_ENFORCE(n >= 0 && out_shape[k] >= 0, "'pads' ", ShapeToString(pads), " crop more than axis ", k,
                  " of input shape ", ShapeToString(data.shape()), " holds");
      const int64_t grow = std::max<int64_t>(0, before[k]) + std::max<int64_t>(0, after[k]);
      PTQ_ENFORCE(mode_ == PadMode::kConstant || n > 0 || grow == 0, "cannot pad the empty axis ", k,
                  " of input shape ", ShapeToString(data.shape()), " in a non-constant mode");
      maps[k] = AxisMap(mode_, out_shape[k], std::max<int64_t>(0, before[k]), crop, n);
    }
    Tensor out(data.dtype(), out_shape);
    if (out.size() > 0) Fill(data, maps, value, es, &out);
    ctx.outputs[0] = std::move(out);
  }

 private:
  // Odometer over the output rows (all axes but the last); a row whose outer coordinates map to a
  // fill position is all value; otherwise each element follows the last axis' map.
  static void Fill(const Tensor& data, const std::vector<std::vector<int64_t>>& maps, const unsigned char* value,
                   size_t es, Tensor* out) {
    const char* src = static_cast<const char*>(data.raw());
    char* dst = static_cast<char*>(out->raw());
    if (data.rank() == 0) {
      std::memcpy(dst, src, es);
      return;
    }
    const std::vector<int64_t> strides = Strides(data.shape());
    const size_t outer_rank = maps.size() - 1;
    const std::vector<int64_t>& last = maps.back();
    const int64_t width = static_cast<int64_t>(last.size());
    std::vector<size_t> pos(outer_rank, 0);
    for (char* row = dst; row < dst + out->nbytes(); row += static_cast<size_t>(width) * es) {
      int64_t base = 0;
      bool filled = false;
      for (size_t k = 0; k < outer_rank; ++k) {
        const int64_t s = maps[k][pos[k]];
        filled = filled || s < 0;
        base += s * strides[k];
      }
      if (filled) {
        FillElements(row, width, value, es);
      } else {
        for (int64_t o = 0; o < width;) {
          const int64_t s = last[static_cast<size_t>(o)];
          if (s < 0) {
            std::memcpy(row + static_cast<size_t>(o) * es, value, es);
            ++o;
            continue;
          }
          int64_t run = 1;  // consecutive outputs reading consecutive inputs: one memcpy
          while (o + run < width && last[static_cast<size_t>(o + run)] == s + run) ++run;
          std::memcpy(row + static_cast<size_t>(o) * es, src + static_cast<size_t>(base + s) * es,
                      static_cast<size_t>(run) * es);
          o += run;
        }
      }
      for (size_t k = outer_rank; k-- > 0;) {
        if (++pos[k] < maps[k].size()) break;
        pos[k] = 0;
      }
    }
  }

  int opset_;
  PadMode mode_ = PadMode::kConstant;
  std::vector<int64_t> pads_attr_;
  float value_attr_ = 0.0f;
};

}  // namespace

std::unique_ptr<Kernel> MakePad(const KernelInit& init) { return MakeKernel<Pad>(init); }

}  // namespace ptq
