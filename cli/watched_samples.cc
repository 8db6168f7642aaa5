// WatchedSamples: a SampleSource decorator calling a hook around every batch.
#include "cli/watched_samples.h"

#include <memory>
#include <utility>

namespace ptq {
namespace {

class Watched : public SampleSource {
 public:
  Watched(std::unique_ptr<SampleSource> inner, BatchHook hook) : inner_(std::move(inner)), hook_(std::move(hook)) {
    hook_(0, inner_->num_samples());
  }
  bool Next(std::map<std::string, Tensor>* batch, int64_t* samples) override {
    if (!inner_->Next(batch, samples)) return false;
    done_ += *samples;
    hook_(done_, inner_->num_samples());
    return true;
  }
  int64_t num_samples() const override { return inner_->num_samples(); }
  std::vector<std::string> warnings() const override { return inner_->warnings(); }

 private:
  std::unique_ptr<SampleSource> inner_;
  BatchHook hook_;
  int64_t done_ = 0;
};

}  // namespace

SampleSourceFactory WatchedSamples(SampleSourceFactory inner, BatchHook hook) {
  if (!hook) return inner;
  return [inner = std::move(inner), hook = std::move(hook)](const Graph& graph, const SampleOptions& options) {
    return std::unique_ptr<SampleSource>(std::make_unique<Watched>(inner(graph, options), hook));
  };
}

}  // namespace ptq
