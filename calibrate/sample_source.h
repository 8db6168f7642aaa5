// Batches of model inputs for the passes over the samples: from files (SampleReader) or handed over by a
// caller such as the Python module (ChunkSamples).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/graph.h"
#include "runtime/tensor.h"

namespace ptq {

struct SampleOptions {
  int64_t max_samples = -1;  // use the first max_samples samples in order; < 0: all
  int64_t batch_size = 1;    // samples per run where every input's dim 0 is free
  int64_t shard_index = 0;   // K of `--shard K/N`
  int64_t shard_count = 1;   // N of `--shard K/N`
};

// One pass over the samples.
class SampleSource {
 public:
  virtual ~SampleSource() = default;
  // The next batch, one tensor per model input; false after the last. *samples_in_batch is at most the
  // batch size and smaller only for the last batch (or where shapes change between samples).
  virtual bool Next(std::map<std::string, Tensor>* batch, int64_t* samples_in_batch) = 0;
  // Samples the pass will give (after max_samples and sharding); -1 when not known in advance.
  virtual int64_t num_samples() const = 0;
  // Warnings for the caller to print (ignored batch size, dropped rows, NaN/Inf counts per input).
  virtual std::vector<std::string> warnings() const = 0;
};

// Opens a new pass over the same samples for `graph` (each pass gives the same batches).
using SampleSourceFactory =
    std::function<std::unique_ptr<SampleSource>(const Graph& graph, const SampleOptions& options)>;

}  // namespace ptq
