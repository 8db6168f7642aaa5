// NonMaxSuppression kernel, as ONNX Runtime computes it. boxes [B, N, 4] (center_point_box 0: two
// corners [y1, x1, y2, x2] in either order; 1: [x_center, y_center, width, height]), scores [B, C, N],
// optional max_output_boxes_per_class (int64, default 0), iou_threshold (float in [0, 1], default 0),
// score_threshold (float; without it every box is a candidate). For each batch b and class c:
//   candidates = boxes with score > score_threshold (never NaN), by descending score (ties: lower index first);
//   take each candidate unless IoU(it, a kept box) > iou_threshold, until max_output are kept;
//   IoU = intersection / (area1 + area2 - intersection), 0 when the intersection is empty.
// Output: int64 [num_selected, 3] rows (b, c, box index) in that order.
#include "runtime/ops/nn/non_max_suppression.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

struct Box {
  float y1, x1, y2, x2;  // y1 <= y2, x1 <= x2
};

Box ReadBox(const float* b, bool center) {
  if (center) {
    const float hw = b[2] / 2, hh = b[3] / 2;
    return {b[1] - hh, b[0] - hw, b[1] + hh, b[0] + hw};
  }
  return {std::min(b[0], b[2]), std::min(b[1], b[3]), std::max(b[0], b[2]), std::max(b[1], b[3])};
}

// True when IoU(a, b) > threshold.
bool Overlaps(const Box& a, const Box& b, float threshold) {
  const float ih = std::min(a.y2, b.y2) - std::max(a.y1, b.y1);
  const float iw = std::min(a.x2, b.x2) - std::max(a.x1, b.x1);
  if (!(ih > 0 && iw > 0)) return false;
  const float inter = ih * iw;
  const float area_a = (a.y2 - a.y1) * (a.x2 - a.x1), area_b = (b.y2 - b.y1) * (b.x2 - b.x1);
  const float uni = area_a + area_b - inter;
  return uni > 0 && inter / uni > threshold;
}

// The one value of an optional scalar input of type T, or `def` when it is omitted.
template <class T>
T OptionalScalar(const KernelContext& ctx, int i, DataType type, const char* name, T def) {
  const Tensor* t = ctx.input(i);
  if (!t) return def;
  PTQ_ENFORCE(t->dtype() == type && t->size() == 1, "input '", name, "' must be one ", DataTypeName(type), ", got ",
              DataTypeName(t->dtype()), " of shape ", ShapeToString(t->shape()));
  return t->data<T>()[0];
}

class NonMaxSuppression : public Kernel {
 public:
  explicit NonMaxSuppression(const KernelInit& init) : center_(init.attrs->GetInt("center_point_box", 0)) {
    PTQ_ENFORCE(center_ == 0 || center_ == 1, "attribute 'center_point_box' is ", center_, "; expected 0 or 1");
  }

  void Run(KernelContext& ctx) override {
    const Tensor& boxes = ctx.required_input(0);
    const Tensor& scores = ctx.required_input(1);
    PTQ_ENFORCE(boxes.dtype() == DataType::kFloat && scores.dtype() == DataType::kFloat,
                "inputs 'boxes' and 'scores' must be float32, got ", DataTypeName(boxes.dtype()), " and ",
                DataTypeName(scores.dtype()));
    PTQ_ENFORCE(boxes.rank() == 3 && boxes.dim(2) == 4 && scores.rank() == 3 && scores.dim(0) == boxes.dim(0) &&
                    scores.dim(2) == boxes.dim(1),
                "inputs 'boxes' ", ShapeToString(boxes.shape()), " and 'scores' ", ShapeToString(scores.shape()),
                " must be [B, N, 4] and [B, C, N]");
    const int64_t max_out = OptionalScalar<int64_t>(ctx, 2, DataType::kInt64, "max_output_boxes_per_class", 0);
    const float iou = OptionalScalar<float>(ctx, 3, DataType::kFloat, "iou_threshold", 0.0f);
    PTQ_ENFORCE(iou >= 0.0f && iou <= 1.0f, "input 'iou_threshold' is ", iou, "; it must be in [0, 1]");
    const bool has_score_threshold = ctx.input(4) != nullptr;
    const float score_threshold = OptionalScalar<float>(ctx, 4, DataType::kFloat, "score_threshold", 0.0f);
    const int64_t batches = boxes.dim(0), classes = scores.dim(1), n = boxes.dim(1);
    std::vector<int64_t> selected;  // (b, c, i) triples
    const float* pb = boxes.data<float>();
    const float* ps = scores.data<float>();
    std::vector<int64_t> order;
    std::vector<Box> kept;
    for (int64_t b = 0; b < batches && max_out > 0; ++b) {
      for (int64_t c = 0; c < classes; ++c) {
        const float* s = ps + (b * classes + c) * n;
        order.clear();
        for (int64_t i = 0; i < n; ++i) {
          if (!std::isnan(s[i]) && (!has_score_threshold || s[i] > score_threshold)) order.push_back(i);
        }
        std::stable_sort(order.begin(), order.end(), [&](int64_t l, int64_t r) { return s[l] > s[r]; });
        kept.clear();
        for (int64_t i : order) {
          if (static_cast<int64_t>(kept.size()) >= max_out) break;
          const Box box = ReadBox(pb + (b * n + i) * 4, center_ == 1);
          if (std::any_of(kept.begin(), kept.end(), [&](const Box& k) { return Overlaps(k, box, iou); })) continue;
          kept.push_back(box);
          selected.insert(selected.end(), {b, c, i});
        }
      }
    }
    ctx.outputs[0] = Tensor::FromVector<int64_t>({static_cast<int64_t>(selected.size() / 3), 3}, selected);
  }

 private:
  int64_t center_;
};

}  // namespace

std::unique_ptr<Kernel> MakeNonMaxSuppression(const KernelInit& init) { return MakeKernel<NonMaxSuppression>(init); }

}  // namespace ptq
