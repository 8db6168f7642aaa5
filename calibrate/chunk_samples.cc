// ChunkSamples: checking the chunks a caller hands over and cutting or joining them into batches.
#include "calibrate/chunk_samples.h"

#include <algorithm>

#include "calibrate/sample_checks.h"
#include "runtime/error.h"

namespace ptq {
namespace {

bool ScalarInput(const ValueInfo& v) { return v.has_shape && v.shape.empty(); }

// Rows per sample: the model's fixed dim 0 B, else 1.
int64_t RowsPerSample(const ValueInfo& v) {
  return v.has_shape && !v.shape.empty() && v.shape[0].value > 0 ? v.shape[0].value : 1;
}

// Whether two tensors agree in every dim after the first (they can share a batch).
bool SameTrailingDims(const Tensor& a, const Tensor& b) {
  return a.rank() == b.rank() && std::equal(a.shape().begin() + 1, a.shape().end(), b.shape().begin() + 1);
}

}  // namespace

ChunkSamples::ChunkSamples(const Graph& graph, ChunkPull pull, const SampleOptions& options, std::string what, int64_t total)
    : inputs_(graph.inputs), pull_(std::move(pull)), what_(std::move(what)), max_samples_(options.max_samples) {
  if (options.batch_size < 1) ThrowUsageError("calibration.batch_size must be at least 1, not ", options.batch_size);
  if (options.max_samples == 0) ThrowUsageError("calibration.max_samples must be positive, not 0");
  if (options.shard_count != 1) ThrowUsageError(what_, ": shards are for data in files (ptq calibrate --shard)");
  if (inputs_.empty()) ThrowDataError(graph.source, ": the model has no inputs to feed samples to");
  for (const ValueInfo& v : inputs_) {
    if (!v.is_tensor) ThrowDataError(graph.source, ": model input '", v.name, "' is not a tensor; only tensor inputs can be fed");
  }
  batch_ = options.batch_size;
  for (const ValueInfo& v : inputs_) {
    if (!FreeBatch(v) && batch_ > 1) {
      batch_ = 1;
      notes_.push_back(StrCat("calibration.batch_size ", options.batch_size, " is not used: model input '", v.name,
                              "' has shape ", DeclaredShapeString(v), v.shape.empty() ? "" : " with a fixed first dimension",
                              "; one sample per run"));
    }
  }
  total_ = total < 0 || max_samples_ < 0 ? total : std::min(total, max_samples_);
}

bool ChunkSamples::Fill() {
  if (ended_) return false;
  Pending p;
  if (!pull_(&p.chunk)) {
    ended_ = true;
    return false;
  }
  const std::string what = StrCat(what_, ", batch ", ++chunks_);
  for (const auto& [name, t] : p.chunk) {
    if (std::none_of(inputs_.begin(), inputs_.end(), [&](const ValueInfo& v) { return v.name == name; })) {
      std::string names;
      for (const ValueInfo& v : inputs_) names += (names.empty() ? "'" : ", '") + v.name + "'";
      ThrowDataError(what, ": '", name, "' is not an input of the model (inputs: ", names, ")");
    }
  }
  std::map<std::string, std::pair<int64_t, std::string>> syms;
  std::string first;  // the input that set p.samples
  for (const ValueInfo& v : inputs_) {
    const auto it = p.chunk.find(v.name);
    if (it == p.chunk.end()) ThrowDataError(what, ": no value for model input '", v.name, "'");
    Tensor& t = it->second;
    if (ScalarInput(v) && t.rank() == 0) t = Tensor::FromBuffer(t.dtype(), {1}, t.buffer());  // one sample
    if (t.rank() == 0) ThrowDataError(what, ": model input '", v.name, "' needs an array whose first axis counts samples, not a scalar");
    CheckSampleShape(v, t.dtype(), t.shape(), 1, what, &syms);
    const int64_t rows = RowsPerSample(v);
    if (t.dim(0) % rows != 0) {
      ThrowDataError(what, ": model input '", v.name, "' takes ", rows, " rows per sample (fixed dimension 0) but the batch has ",
                     t.dim(0), " rows");
    }
    const int64_t samples = t.dim(0) / rows;
    if (first.empty()) {
      p.samples = samples;
      first = v.name;
    } else if (samples != p.samples) {
      ThrowDataError(what, ": model input '", v.name, "' has ", samples, " samples but '", first, "' has ", p.samples);
    }
    auto& counts = non_finite_[v.name];
    CountNonFinite(t, &counts.first, &counts.second);
  }
  if (p.samples == 0) ThrowDataError(what, ": holds no samples (the first axis is 0)");
  pending_.push_back(std::move(p));
  return true;
}

Tensor ChunkSamples::Rows(const Pending& p, const ValueInfo& in, int64_t first, int64_t count) const {
  const Tensor& t = p.chunk.at(in.name);
  if (ScalarInput(in)) {  // REQUIRES count 1 (batch_ is 1)
    const size_t bytes = t.nbytes() / static_cast<size_t>(t.dim(0));
    return Tensor::FromBuffer(t.dtype(), {}, std::shared_ptr<void>(t.buffer(), static_cast<char*>(t.buffer().get()) + first * bytes));
  }
  if (first == 0 && count == p.samples) return t;
  const int64_t rows = RowsPerSample(in);
  const size_t row_bytes = t.dim(0) > 0 ? t.nbytes() / static_cast<size_t>(t.dim(0)) : 0;
  Shape shape = t.shape();
  shape[0] = count * rows;
  char* start = static_cast<char*>(t.buffer().get()) + static_cast<size_t>(first * rows) * row_bytes;
  return Tensor::FromBuffer(t.dtype(), shape, std::shared_ptr<void>(t.buffer(), start));
}

bool ChunkSamples::Next(std::map<std::string, Tensor>* batch, int64_t* samples_in_batch) {
  if (max_samples_ >= 0 && given_ >= max_samples_) return false;
  const int64_t want = max_samples_ < 0 ? batch_ : std::min(batch_, max_samples_ - given_);
  if (pending_.empty() && !Fill()) {
    if (given_ == 0) ThrowDataError(what_, ": holds no samples");
    return false;
  }
  batch->clear();
  Pending& head = pending_.front();
  if (head.samples - head.used >= want) {  // one chunk: a view of its memory
    for (const ValueInfo& v : inputs_) (*batch)[v.name] = Rows(head, v, head.used, want);
    head.used += want;
    if (head.used == head.samples) pending_.pop_front();
  } else {  // samples of several chunks, while their dims after the first agree: copied into one batch
    std::map<std::string, std::vector<Tensor>> parts;
    int64_t k = 0;
    for (size_t i = 0; k < want; ++i) {
      if (i == pending_.size() && !Fill()) break;
      const Pending& p = pending_[i];
      const bool joins = std::all_of(inputs_.begin(), inputs_.end(), [&](const ValueInfo& v) {
        return i == 0 || SameTrailingDims(p.chunk.at(v.name), pending_[0].chunk.at(v.name));
      });
      if (!joins) break;
      const int64_t take = std::min(want - k, p.samples - p.used);
      for (const ValueInfo& v : inputs_) parts[v.name].push_back(Rows(p, v, p.used, take));
      k += take;
    }
    // Mark what was taken: whole chunks leave the queue; the last one taken from may keep samples.
    for (int64_t left = k; left > 0;) {
      Pending& p = pending_.front();
      const int64_t take = std::min(left, p.samples - p.used);
      p.used += take;
      left -= take;
      if (p.used == p.samples) pending_.pop_front();
    }
    for (const ValueInfo& v : inputs_) {
      std::vector<Tensor>& ps = parts[v.name];
      (*batch)[v.name] = ps.size() == 1 ? ps.front() : ConcatRows(ps);
    }
    *samples_in_batch = k;
    given_ += k;
    return true;
  }
  *samples_in_batch = want;
  given_ += want;
  return true;
}

std::vector<std::string> ChunkSamples::warnings() const {
  std::vector<std::string> out = notes_;
  for (const auto& [name, counts] : non_finite_) {
    if (counts.first + counts.second > 0) {
      out.push_back(StrCat(what_, ": model input '", name, "' has ", counts.first, " NaN and ", counts.second,
                           " infinite values in the samples read so far"));
    }
  }
  return out;
}

}  // namespace ptq
