// Calibration samples from calibration.data (.npy folder, .npz, test_data_set_* folders), checked and batched.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "calibrate/sample_source.h"
#include "runtime/graph.h"
#include "runtime/tensor.h"

namespace ptq {

// Layouts (design.md, "Formats on disk"):
//  - a folder of <SanitizeFileName(input)>.npy, or an .npz whose keys are the input names (or their
//    sanitized forms): the first axis of each array counts rows. A model input whose dim 0 is free or
//    fixed to 1 takes one row per sample; one whose dim 0 is fixed to B > 1 takes B rows per sample
//    (rows beyond the last whole sample are dropped with a warning); a rank-0 input takes one element
//    of a 1-D array per sample, fed as a scalar.
//  - a folder of test_data_set_* folders (ordered by their number) of input_N.pb: each folder is one
//    sample, its tensors fed with their shapes as given; output_N.pb and other files are ignored.
// Selection: the first max_samples samples, then of those every N-th starting at K, so the shards
// 0/N .. N-1/N of a run partition exactly the samples of the unsharded run.
// Batching: when every input's dim 0 is free, up to batch_size selected samples are concatenated along
// axis 0 (test_data_set samples only while their other dims agree); otherwise one sample per run.
// Open checks names, dtypes, ranks, fixed dims, symbolic dims shared between inputs and sample counts
// before any data is read, and throws an input error naming the file, the input and what was expected.
// Memory: .npy files are read through a read-ahead buffer of at most 256 KiB (or one batch, when
// larger) per input; an .npz entry is inflated whole when first used.
class SampleReader : public SampleSource {
 public:
  static SampleReader Open(const Graph& graph, const std::string& data_path, const SampleOptions& options);
  SampleReader(SampleReader&&) noexcept;
  SampleReader& operator=(SampleReader&&) noexcept;
  ~SampleReader() override;

  int64_t num_samples() const override { return selected_; }  // after max_samples and sharding
  int64_t total_samples() const { return total_; }   // in the data
  int64_t batch_size() const { return batch_; }      // effective: 1 when some input's dim 0 is fixed

  // The next batch, one tensor per model input; false after the last. *samples_in_batch is at most
  // batch_size() and smaller only for the last batch (or a test_data_set run whose shapes change).
  bool Next(std::map<std::string, Tensor>* batch, int64_t* samples_in_batch) override;
  void Rewind() { next_ = 0; }

  // Warnings for the caller to print: ignored batch_size, dropped rows, NaN/Inf counts per input
  // (counted over the batches returned so far; the data is passed on unchanged).
  std::vector<std::string> warnings() const override;

  struct Input;  // one model input's data (defined in sample_reader.cc)

 private:
  SampleReader();
  int64_t SampleAt(int64_t j) const { return shard_index_ + j * shard_count_; }  // j-th selected sample
  void ReadNpyData(Input* in, int64_t src, int64_t len, char* dst) const;

  std::vector<std::unique_ptr<Input>> inputs_;  // in graph input order
  std::vector<std::string> folders_;            // test_data_set_* layout: one folder per sample
  std::vector<std::string> notes_;              // warnings found by Open
  int64_t total_ = 0, selected_ = 0, batch_ = 1, next_ = 0;
  int64_t shard_index_ = 0, shard_count_ = 1;
};

// A factory of passes over the samples at `data_path` (SampleReader::Open).
SampleSourceFactory FileSamples(const std::string& data_path);

}  // namespace ptq
