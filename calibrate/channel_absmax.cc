// CollectChannelAbsMax: an observer pass keeping one running maximum per channel.
#include "calibrate/channel_absmax.h"

#include <cmath>
#include <memory>

#include "runtime/session.h"

namespace ptq {

std::map<std::string, std::vector<float>> CollectChannelAbsMax(const Graph& graph, SampleSource& samples,
                                                               const std::set<std::string>& tensors) {
  std::map<std::string, std::vector<float>> maxima;
  std::set<std::string> broken;
  std::shared_ptr<const Graph> shared(std::shared_ptr<const Graph>(), &graph);
  Session session(shared, SessionOptions::ObservingEveryTensor());
  const Observer observer = [&](const Observation& o) {
    if (o.value.dtype() != DataType::kFloat || o.value.rank() < 1 || !tensors.count(o.name) || broken.count(o.name)) return;
    const int64_t k = o.value.shape().back();
    std::vector<float>& m = maxima[o.name];
    if (m.empty()) m.assign(static_cast<size_t>(k), 0.0f);
    if (static_cast<int64_t>(m.size()) != k || k == 0) {
      broken.insert(o.name);
      return;
    }
    const float* v = o.value.data<float>();
    const int64_t rows = o.value.size() / k;
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < k; ++c) {
        const float a = std::fabs(v[r * k + c]);
        if (a > m[static_cast<size_t>(c)]) m[static_cast<size_t>(c)] = a;  // false for NaN
      }
    }
  };
  std::map<std::string, Tensor> batch;
  int64_t n = 0;
  while (samples.Next(&batch, &n)) session.Run(batch, observer);
  for (const std::string& b : broken) maxima.erase(b);
  return maxima;
}

}  // namespace ptq
