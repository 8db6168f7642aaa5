// AddTaskBatch: one function per task over a batch of float and int8 outputs; TaskJson for the report.
#include "report/task_metrics.h"

#include <algorithm>

#include "report/argmax.h"
#include "report/box_match.h"
#include "report/connected_components.h"
#include "report/ctc_decode.h"
#include "runtime/error.h"

namespace ptq {
namespace {

constexpr int64_t kTopK = 5;

[[noreturn]] void DoesNotFit(const std::string& output, const TaskSpec& spec, const std::string& needs, const Tensor& f) {
  ThrowUsageError("'validation.tasks.", output, "': ", TaskTypeName(spec.type), " needs ", needs, "; output '", output,
                  "' has shape ", ShapeToString(f.shape()));
}

// Whether class `qa` is among the kTopK best of row f (ties to the lower index, as argmax breaks them).
bool InTopK(const float* f, int64_t classes, int64_t qa) {
  const float v = f[qa];
  int64_t better = 0;
  for (int64_t c = 0; c < classes; ++c) better += f[c] > v || (c < qa && f[c] == v);
  return better < kTopK;
}

// Argmax over the last axis of [N, ..., C].
void AddClassification(TaskStats* s, const std::string& output, const Tensor& f, const Tensor& q) {
  if (f.rank() < 2 || f.dim(f.rank() - 1) < 2) DoesNotFit(output, s->spec, "[N, ..., classes] with 2 or more classes", f);
  const int64_t classes = f.dim(f.rank() - 1), rows = f.size() / classes;
  s->classes = classes;
  for (int64_t r = 0; r < rows; ++r) {
    const float* a = f.data<float>() + r * classes;
    const int64_t qa = Argmax(q.data<float>() + r * classes, classes);
    s->agree += Argmax(a, classes) == qa;
    s->top5 += InTopK(a, classes, qa);
  }
  s->rows += rows;
}

// Argmax over axis 1 of [N, C, H, W], per pixel.
void AddSegmentation(TaskStats* s, const std::string& output, const Tensor& f, const Tensor& q) {
  if (f.rank() != 4 || f.dim(1) < 2) DoesNotFit(output, s->spec, "[N, classes, H, W] with 2 or more classes", f);
  const int64_t classes = f.dim(1), pixels = f.dim(2) * f.dim(3);
  for (int64_t n = 0; n < f.dim(0); ++n) {
    const float* a = f.data<float>() + n * classes * pixels;
    const float* b = q.data<float>() + n * classes * pixels;
    for (int64_t p = 0; p < pixels; ++p) s->agree += Argmax(a + p, classes, pixels) == Argmax(b + p, classes, pixels);
  }
  s->classes = classes;
  s->rows += f.dim(0) * pixels;
}

// Greedy CTC decodes of [N, T, C] (classes on spec.axis), int8 against float.
void AddCtc(TaskStats* s, const std::string& output, const Tensor& f, const Tensor& q) {
  if (f.rank() != 3) DoesNotFit(output, s->spec, "[N, T, classes]", f);
  const int64_t axis = s->spec.axis < 0 ? s->spec.axis + 3 : s->spec.axis;
  const int64_t classes = f.dim(axis), steps = f.dim(3 - axis);
  if (s->spec.blank >= classes) {
    DoesNotFit(output, s->spec, "more than " + std::to_string(s->spec.blank) + " classes on axis " + std::to_string(axis) +
                                    " (blank is " + std::to_string(s->spec.blank) + ")", f);
  }
  const int64_t step_stride = axis == 2 ? classes : 1, class_stride = axis == 2 ? 1 : steps;
  for (int64_t n = 0; n < f.dim(0); ++n) {
    const int64_t at = n * steps * classes;
    const auto a = CtcGreedyDecode(f.data<float>() + at, steps, classes, step_stride, class_stride, s->spec.blank);
    const auto b = CtcGreedyDecode(q.data<float>() + at, steps, classes, step_stride, class_stride, s->spec.blank);
    s->same += a == b;
    s->edits += SequenceEditDistance(b, a);
    s->float_tokens += static_cast<int64_t>(a.size());
  }
}

// Boxes of the components of each probability map [N, 1, H, W] or [N, H, W], int8 matched to float.
void AddTextDetection(TaskStats* s, const std::string& output, const Tensor& f, const Tensor& q) {
  if (!(f.rank() == 3 || (f.rank() == 4 && f.dim(1) == 1))) DoesNotFit(output, s->spec, "[N, 1, H, W] or [N, H, W]", f);
  const int64_t h = f.dim(f.rank() - 2), w = f.dim(f.rank() - 1);
  const float threshold = static_cast<float>(s->spec.threshold);
  for (int64_t n = 0; n < f.dim(0); ++n) {
    const auto a = ComponentBoxes(f.data<float>() + n * h * w, h, w, threshold, s->spec.min_size);
    const auto b = ComponentBoxes(q.data<float>() + n * h * w, h, w, threshold, s->spec.min_size);
    s->float_boxes += static_cast<int64_t>(a.size());
    s->int8_boxes += static_cast<int64_t>(b.size());
    s->matched += MatchBoxes(a, b, s->spec.iou);
  }
}

double Share(int64_t k, int64_t n) { return static_cast<double>(k) / static_cast<double>(n); }

// k of n, where none of none counts as full agreement and some of none (n = 0, other > 0) as none.
double ShareOrEmpty(int64_t k, int64_t n, int64_t other) { return n > 0 ? Share(k, n) : (other == 0 ? 1.0 : 0.0); }

}  // namespace

void AddTaskBatch(TaskStats* s, const std::string& output, const Tensor& f, const Tensor& q) {
  if (f.dtype() != DataType::kFloat) {
    ThrowUsageError("'validation.tasks.", output, "': ", TaskTypeName(s->spec.type), " needs a float output; output '",
                    output, "' is ", DataTypeName(f.dtype()));
  }
  switch (s->spec.type) {
    case TaskType::kClassification: AddClassification(s, output, f, q); break;
    case TaskType::kCtc: AddCtc(s, output, f, q); break;
    case TaskType::kTextDetection: AddTextDetection(s, output, f, q); break;
    case TaskType::kSegmentation: AddSegmentation(s, output, f, q); break;
  }
  s->samples += f.rank() > 0 ? f.dim(0) : 0;
}

std::optional<double> TaskAgreement(const TaskStats& s) {
  if (s.samples == 0) return std::nullopt;
  switch (s.spec.type) {
    case TaskType::kCtc: return Share(s.same, s.samples);
    case TaskType::kTextDetection: return ShareOrEmpty(s.matched, s.float_boxes, s.int8_boxes);
    default: return s.rows > 0 ? Share(s.agree, s.rows) : 1.0;
  }
}

const char* TaskAgreementName(TaskType type) {
  switch (type) {
    case TaskType::kCtc: return "same_sequence";
    case TaskType::kTextDetection: return "recall";
    case TaskType::kSegmentation: return "pixel_agreement";
    default: return "top1_agreement";
  }
}

nlohmann::json TaskJson(const TaskStats& s) {
  nlohmann::json j = {{"type", TaskTypeName(s.spec.type)}, {"samples", s.samples}};
  const bool any = s.samples > 0;
  auto figure = [&](double v) { return any ? nlohmann::json(v) : nlohmann::json(); };
  switch (s.spec.type) {
    case TaskType::kClassification:
      j["rows"] = s.rows;
      j["top1_agreement"] = figure(TaskAgreement(s).value_or(0));
      if (s.classes > kTopK) j["top5_agreement"] = figure(s.rows > 0 ? Share(s.top5, s.rows) : 1.0);
      break;
    case TaskType::kCtc:
      j["blank"] = s.spec.blank;
      j["same_sequence"] = figure(TaskAgreement(s).value_or(0));
      j["token_error_rate"] = figure(Share(s.edits, std::max<int64_t>(1, s.float_tokens)));
      j["edits"] = s.edits;
      j["float_tokens"] = s.float_tokens;
      break;
    case TaskType::kTextDetection:
      j["float_boxes"] = s.float_boxes;
      j["int8_boxes"] = s.int8_boxes;
      j["matched"] = s.matched;
      j["recall"] = figure(ShareOrEmpty(s.matched, s.float_boxes, s.int8_boxes));
      j["precision"] = figure(ShareOrEmpty(s.matched, s.int8_boxes, s.float_boxes));
      break;
    case TaskType::kSegmentation:
      j["pixels"] = s.rows;
      j["pixel_agreement"] = figure(TaskAgreement(s).value_or(0));
      break;
  }
  return j;
}

}  // namespace ptq
