// Tests of ChunkSamples: chunks of any size give SampleReader's batches, views where they can, and
// every check a data error naming the batch and the input.
#include "calibrate/chunk_samples.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <functional>

#include "calibrate/sample_reader.h"
#include "runtime/error.h"
#include "runtime/file_util.h"
#include "runtime/npy.h"
#include "tests/calibrate/input_graph_util.h"

namespace ptq {
namespace {

namespace fs = std::filesystem;

using testing::In;
using testing::Model;

// rows x cols floats starting at row `first`: element [r, c] = 100 * (first + r) + c.
Tensor Rows(int64_t first, int64_t rows, int64_t cols) {
  std::vector<float> v;
  for (int64_t r = first; r < first + rows; ++r)
    for (int64_t c = 0; c < cols; ++c) v.push_back(static_cast<float>(100 * r + c));
  return Tensor::FromVector<float>({rows, cols}, v);
}

// A pull over chunks of the given sizes, rows numbered on from 0 (ids: int64 row numbers).
ChunkPull Pull(std::vector<int64_t> sizes, int64_t cols = 3) {
  auto next = std::make_shared<size_t>(0);
  auto row = std::make_shared<int64_t>(0);
  return [=](Chunk* c) {
    if (*next >= sizes.size()) return false;
    const int64_t n = sizes[(*next)++];
    std::vector<int64_t> ids;
    for (int64_t i = 0; i < n; ++i) ids.push_back(*row + i);
    (*c)["x"] = Rows(*row, n, cols);
    (*c)["ids"] = Tensor::FromVector<int64_t>({n}, ids);
    *row += n;
    return true;
  };
}

using Batches = std::vector<std::map<std::string, Tensor>>;

Batches ReadAll(SampleSource& s, std::vector<int64_t>* counts = nullptr) {
  Batches out;
  std::map<std::string, Tensor> b;
  int64_t n = 0;
  while (s.Next(&b, &n)) {
    out.push_back(b);
    if (counts) counts->push_back(n);
  }
  return out;
}

void ExpectSameBatches(const Batches& a, const Batches& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    for (const auto& [name, t] : a[i]) {
      const Tensor& u = b[i].at(name);
      ASSERT_EQ(t.shape(), u.shape()) << "batch " << i << " " << name;
      ASSERT_EQ(0, std::memcmp(t.raw(), u.raw(), t.nbytes())) << "batch " << i << " " << name;
    }
  }
}

const Graph kModel = Model({In("x", DataType::kFloat, {-1, 3}), In("ids", DataType::kInt64, {-1})});

TEST(ChunkSamples, AnyChunkSizesGiveTheBatchesOfTheSameRowsInNpyFiles) {
  const fs::path dir = fs::temp_directory_path() / ("ptq_chunks_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::vector<int64_t> ids(23);
  for (int64_t i = 0; i < 23; ++i) ids[static_cast<size_t>(i)] = i;
  WriteFileAtomic((dir / "x.npy").string(), EncodeNpy(Rows(0, 23, 3)));
  WriteFileAtomic((dir / "ids.npy").string(), EncodeNpy(Tensor::FromVector<int64_t>({23}, ids)));
  for (int64_t batch : {1, 4, 8}) {
    for (int64_t max : {-1, 10}) {
      SampleOptions o;
      o.batch_size = batch;
      o.max_samples = max;
      SampleReader files = SampleReader::Open(kModel, dir.string(), o);
      std::vector<int64_t> want_counts, got_counts;
      const Batches want = ReadAll(files, &want_counts);
      for (const auto& sizes : std::vector<std::vector<int64_t>>{{23}, {1, 22}, {5, 5, 5, 5, 3}, {3, 7, 2, 11}}) {
        ChunkSamples chunks(kModel, Pull(sizes), o, "data", 23);
        const Batches got = ReadAll(chunks, &got_counts);
        ExpectSameBatches(want, got);
        EXPECT_EQ(want_counts, got_counts);
        EXPECT_EQ(chunks.num_samples(), max < 0 ? 23 : 10);
        got_counts.clear();
      }
    }
  }
  fs::remove_all(dir);
}

TEST(ChunkSamples, ABatchInsideOneChunkIsAViewOfItsMemory) {
  Tensor x = Rows(0, 8, 3);
  const char* base = static_cast<const char*>(x.raw());
  bool given = false;
  SampleOptions o;
  o.batch_size = 4;
  ChunkSamples s(kModel, [&](Chunk* c) {
    if (given) return false;
    given = true;
    (*c)["x"] = x;
    (*c)["ids"] = Tensor::FromVector<int64_t>({8}, {0, 1, 2, 3, 4, 5, 6, 7});
    return true;
  }, o, "data");
  std::map<std::string, Tensor> b;
  int64_t n = 0;
  ASSERT_TRUE(s.Next(&b, &n));
  EXPECT_EQ(b.at("x").raw(), base);
  ASSERT_TRUE(s.Next(&b, &n));
  EXPECT_EQ(static_cast<const char*>(b.at("x").raw()), base + 4 * 3 * sizeof(float));
  EXPECT_FALSE(s.Next(&b, &n));
}

TEST(ChunkSamples, SamplesOfDifferentLengthsAreNotJoined) {
  const Graph g = Model({In("tokens", DataType::kInt64, {-1, -1})});
  std::vector<int64_t> lengths = {5, 5, 7, 7, 7};
  size_t next = 0;
  SampleOptions o;
  o.batch_size = 4;
  ChunkSamples s(g, [&](Chunk* c) {
    if (next >= lengths.size()) return false;
    (*c)["tokens"] = Tensor(DataType::kInt64, {1, lengths[next++]});
    return true;
  }, o, "data");
  std::vector<int64_t> counts;
  const Batches b = ReadAll(s, &counts);
  EXPECT_EQ(counts, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(b[1].at("tokens").shape(), (Shape{3, 7}));
}

TEST(ChunkSamples, AFixedBatchDimensionTakesItsRowsPerSample) {
  const Graph g = Model({In("x", DataType::kFloat, {2, 3})});
  SampleOptions o;
  o.batch_size = 8;  // not used: dim 0 is fixed
  bool given = false;
  ChunkSamples s(g, [&](Chunk* c) {
    if (given) return false;
    given = true;
    (*c)["x"] = Rows(0, 6, 3);
    return true;
  }, o, "data");
  std::vector<int64_t> counts;
  const Batches b = ReadAll(s, &counts);
  EXPECT_EQ(counts, (std::vector<int64_t>{1, 1, 1}));
  EXPECT_EQ(b[2].at("x").data<float>()[0], 400.0f);
  ASSERT_EQ(s.warnings().size(), 1u);
  EXPECT_NE(s.warnings()[0].find("calibration.batch_size 8 is not used"), std::string::npos);
}

std::string ErrorOf(const Graph& g, std::function<void(Chunk*)> make) {
  bool given = false;
  try {
    ChunkSamples s(g, [&](Chunk* c) {
      if (given) return false;
      given = true;
      make(c);
      return true;
    }, SampleOptions(), "calibration_data");
    std::map<std::string, Tensor> b;
    int64_t n = 0;
    while (s.Next(&b, &n)) {
    }
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInput);
    EXPECT_EQ(e.subject(), InputSubject::kData);
    return e.what();
  }
  return "";
}

TEST(ChunkSamples, BadChunksAreDataErrorsNamingTheBatchAndTheInput) {
  EXPECT_EQ(ErrorOf(kModel, [](Chunk* c) { (*c)["x"] = Rows(0, 2, 3); }),
            "calibration_data, batch 1: no value for model input 'ids'");
  EXPECT_EQ(ErrorOf(kModel, [](Chunk* c) {
              (*c)["x"] = Rows(0, 2, 3);
              (*c)["ids"] = Tensor::FromVector<int64_t>({2}, {0, 1});
              (*c)["mask"] = Rows(0, 2, 3);
            }),
            "calibration_data, batch 1: 'mask' is not an input of the model (inputs: 'x', 'ids')");
  EXPECT_EQ(ErrorOf(kModel, [](Chunk* c) {
              (*c)["x"] = Rows(0, 2, 3);
              (*c)["ids"] = Tensor::FromVector<int64_t>({3}, {0, 1, 2});
            }),
            "calibration_data, batch 1: model input 'ids' has 3 samples but 'x' has 2");
  EXPECT_NE(ErrorOf(kModel, [](Chunk* c) {
              (*c)["x"] = Rows(0, 2, 4);
              (*c)["ids"] = Tensor::FromVector<int64_t>({2}, {0, 1});
            }).find("calibration_data, batch 1: model input 'x' has shape [N, 3]: dimension 1 must be 3"),
            std::string::npos);
  EXPECT_EQ(ErrorOf(kModel, [](Chunk*) {}), "calibration_data, batch 1: no value for model input 'x'");
  bool given = false;
  ChunkSamples empty(kModel, [&](Chunk*) { return given; }, SampleOptions(), "calibration_data");
  std::map<std::string, Tensor> b;
  int64_t n = 0;
  try {
    empty.Next(&b, &n);
    ADD_FAILURE() << "no error for data without samples";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "calibration_data: holds no samples");
  }
}

}  // namespace
}  // namespace ptq
