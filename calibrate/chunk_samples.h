// Samples handed over by a caller in chunks (the Python module's dicts of arrays), checked against the
// model's inputs and batched as SampleReader batches the rows of .npy files.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "calibrate/sample_source.h"
#include "runtime/graph.h"
#include "runtime/tensor.h"

namespace ptq {

// One chunk: a tensor per model input, its first axis counting rows as an .npy file's does (a model
// input whose dim 0 is fixed to B > 1 takes B rows per sample, else one; a rank-0 input takes a 1-D
// array, one element per sample, or a rank-0 value as one sample).
using Chunk = std::map<std::string, Tensor>;
// Fills the next chunk; false after the last.
using ChunkPull = std::function<bool(Chunk* chunk)>;

// Batches: options.batch_size samples per run when every input's dim 0 is free (else one sample per
// run, with a warning), the first options.max_samples samples only. A batch is a view of its chunk's
// memory when it lies in one chunk; samples of several chunks are copied into one batch, which never
// mixes samples whose dims after the first differ. Each chunk is checked (inputs present and no others,
// dtype, rank, fixed and shared symbolic dims, the same number of samples in every input) before it is
// used; errors are data errors naming `what` (e.g. "calibration_data, batch 3") and the input.
class ChunkSamples : public SampleSource {
 public:
  // `total`: the samples the chunks hold when known in advance (for progress), else -1.
  // REQUIRES: options has no shards (shard_count 1).
  ChunkSamples(const Graph& graph, ChunkPull pull, const SampleOptions& options, std::string what, int64_t total = -1);

  bool Next(std::map<std::string, Tensor>* batch, int64_t* samples_in_batch) override;
  int64_t num_samples() const override { return total_; }
  std::vector<std::string> warnings() const override;

 private:
  struct Pending {
    Chunk chunk;
    int64_t samples = 0;
    int64_t used = 0;  // samples already given out
  };
  bool Fill();  // pulls and checks one more chunk into pending_; false at the end of the data
  Tensor Rows(const Pending& p, const ValueInfo& in, int64_t first, int64_t count) const;

  std::vector<ValueInfo> inputs_;
  ChunkPull pull_;
  std::string what_;
  int64_t batch_ = 1, max_samples_ = -1, total_ = -1, given_ = 0, chunks_ = 0;
  bool ended_ = false;
  std::deque<Pending> pending_;
  std::vector<std::string> notes_;
  std::map<std::string, std::pair<int64_t, int64_t>> non_finite_;  // input -> NaN, Inf counts so far
};

}  // namespace ptq
