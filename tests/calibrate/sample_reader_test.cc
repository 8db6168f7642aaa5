// Tests of the sample reader: the three layouts, batching, max_samples, sharding, checks and warnings.
#include "calibrate/sample_reader.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <set>

#include "runtime/file_util.h"
#include "runtime/npy.h"
#include "runtime/tensor_proto.h"
#include "tests/calibrate/input_graph_util.h"

namespace ptq {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() : path_(fs::temp_directory_path() / ("ptq_samples_" + std::to_string(::getpid()) + "_" + std::to_string(counter_++))) {
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }
  std::string str() const { return path_.string(); }

 private:
  static inline int counter_ = 0;
  fs::path path_;
};

using testing::In;
using testing::Model;

// rows x cols floats, element [r, c] = 100 * r + c.
Tensor Rows(int64_t rows, int64_t cols) {
  std::vector<float> v;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) v.push_back(static_cast<float>(100 * r + c));
  return Tensor::FromVector<float>({rows, cols}, v);
}

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_NE(e.kind(), ErrorKind::kInternal) << e.what();
    return e.what();
  }
  return "(no error)";
}

// Reads every batch; returns the row numbers (value / 100 of column 0) of input `name`, in order.
std::vector<int64_t> RowsRead(SampleReader& r, const std::string& name, std::vector<int64_t>* batch_sizes = nullptr) {
  std::vector<int64_t> rows;
  std::map<std::string, Tensor> batch;
  int64_t n = 0;
  while (r.Next(&batch, &n)) {
    const Tensor& t = batch.at(name);
    EXPECT_EQ(t.dim(0), n);
    for (int64_t i = 0; i < t.dim(0); ++i) rows.push_back(static_cast<int64_t>(t.GetAsDouble(i * (t.size() / t.dim(0)))) / 100);
    if (batch_sizes) batch_sizes->push_back(n);
  }
  return rows;
}

TEST(SampleReader, NpyFolderBatchesAlongAFreeFirstAxisWithAPartialLastBatch) {
  TempDir d;
  WriteNpy(d / "x.npy", Rows(7, 3));
  SampleReader r = SampleReader::Open(Model({In("x", DataType::kFloat, {-1, 3})}), d.str(), {-1, 3, 0, 1});
  EXPECT_EQ(r.num_samples(), 7);
  EXPECT_EQ(r.batch_size(), 3);
  std::vector<int64_t> sizes;
  EXPECT_EQ(RowsRead(r, "x", &sizes), (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(sizes, (std::vector<int64_t>{3, 3, 1}));
  EXPECT_TRUE(r.warnings().empty());
  r.Rewind();
  std::map<std::string, Tensor> batch;
  int64_t n = 0;
  ASSERT_TRUE(r.Next(&batch, &n));
  EXPECT_EQ(batch.at("x").shape(), (Shape{3, 3}));
  EXPECT_EQ(batch.at("x").data<float>()[4], 101.0f);
}

TEST(SampleReader, FixedBatchOfOneReadsOneSamplePerRunAndSaysBatchSizeIsUnused) {
  TempDir d;
  WriteNpy(d / "x.npy", Rows(4, 3));
  SampleReader r = SampleReader::Open(Model({In("x", DataType::kFloat, {1, 3})}), d.str(), {-1, 8, 0, 1});
  EXPECT_EQ(r.batch_size(), 1);
  std::vector<int64_t> sizes;
  EXPECT_EQ(RowsRead(r, "x", &sizes), (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(sizes, (std::vector<int64_t>{1, 1, 1, 1}));
  ASSERT_EQ(r.warnings().size(), 1u);
  EXPECT_NE(r.warnings()[0].find("batch_size 8 is not used"), std::string::npos) << r.warnings()[0];
}

TEST(SampleReader, FixedBatchOfBTakesBRowsPerSampleAndDropsTheRemainder) {
  TempDir d;
  WriteNpy(d / "x.npy", Rows(5, 3));
  SampleReader r = SampleReader::Open(Model({In("x", DataType::kFloat, {2, 3})}), d.str(), {});
  EXPECT_EQ(r.num_samples(), 2);
  std::map<std::string, Tensor> batch;
  int64_t n = 0;
  ASSERT_TRUE(r.Next(&batch, &n));
  ASSERT_TRUE(r.Next(&batch, &n));
  EXPECT_EQ(n, 1);
  EXPECT_EQ(batch.at("x").shape(), (Shape{2, 3}));
  EXPECT_EQ(batch.at("x").data<float>()[0], 200.0f);  // rows 2 and 3
  EXPECT_EQ(batch.at("x").data<float>()[3], 300.0f);
  EXPECT_FALSE(r.Next(&batch, &n));
  ASSERT_EQ(r.warnings().size(), 1u);
  EXPECT_NE(r.warnings()[0].find("the last 1 of 5 rows are not used"), std::string::npos) << r.warnings()[0];
}

TEST(SampleReader, ScalarInputTakesOneElementPerSample) {
  TempDir d;
  WriteNpy(d / "t.npy", Tensor::FromVector<int64_t>({3}, {7, 8, 9}));
  WriteNpy(d / "x.npy", Rows(3, 2));
  SampleReader r = SampleReader::Open(Model({In("t", DataType::kInt64, {}), In("x", DataType::kFloat, {-1, 2})}), d.str(), {-1, 2, 0, 1});
  EXPECT_EQ(r.batch_size(), 1);
  std::map<std::string, Tensor> batch;
  int64_t n = 0;
  for (int64_t i = 0; i < 3; ++i) {
    ASSERT_TRUE(r.Next(&batch, &n));
    EXPECT_EQ(batch.at("t").shape(), Shape{});
    EXPECT_EQ(batch.at("t").data<int64_t>()[0], 7 + i);
    EXPECT_EQ(batch.at("x").shape(), (Shape{1, 2}));
  }
  EXPECT_FALSE(r.Next(&batch, &n));
}

TEST(SampleReader, MaxSamplesTakesTheFirstSamplesInFileOrder) {
  TempDir d;
  WriteNpy(d / "x.npy", Rows(10, 2));
  SampleReader r = SampleReader::Open(Model({In("x", DataType::kFloat, {-1, 2})}), d.str(), {4, 3, 0, 1});
  EXPECT_EQ(r.total_samples(), 10);
  EXPECT_EQ(r.num_samples(), 4);
  EXPECT_EQ(RowsRead(r, "x"), (std::vector<int64_t>{0, 1, 2, 3}));
}

TEST(SampleReader, ShardsCoverEverySelectedSampleExactlyOnce) {
  TempDir d;
  WriteNpy(d / "x.npy", Rows(10, 2));
  for (int64_t max : {-1, 9}) {
    for (int64_t count = 1; count <= 4; ++count) {
      std::multiset<int64_t> seen;
      for (int64_t k = 0; k < count; ++k) {
        SampleReader r = SampleReader::Open(Model({In("x", DataType::kFloat, {-1, 2})}), d.str(), {max, 2, k, count});
        const std::vector<int64_t> rows = RowsRead(r, "x");
        EXPECT_EQ(static_cast<int64_t>(rows.size()), r.num_samples());
        for (size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(rows[i], k + static_cast<int64_t>(i) * count);
        seen.insert(rows.begin(), rows.end());
      }
      const int64_t m = max < 0 ? 10 : max;
      EXPECT_EQ(static_cast<int64_t>(seen.size()), m) << count;
      for (int64_t i = 0; i < m; ++i) EXPECT_EQ(seen.count(i), 1u) << i;
    }
  }
}

// Files larger than the 256 KiB read-ahead: batches and shards that straddle its boundary, rows wider
// than it, reads that bypass it (a batch of 256 KiB or more, a shard whose every N-th row lies beyond it),
// and a Rewind after the end all give every row's exact values.
TEST(SampleReader, ReadAheadBoundariesGiveEveryRowExactly) {
  TempDir d;
  // Rows of 4000 bytes (a 256 KiB boundary falls inside one), 100 KB (3 of them pass the read-ahead),
  // 1.2 MB.
  for (int64_t cols : {1000, 25000, 300000}) {
    const int64_t rows = cols == 1000 ? 700 : cols == 25000 ? 12 : 3;
    WriteNpy(d / "x.npy", Rows(rows, cols));
    for (int64_t batch : {1, 3, 64}) {
      for (int64_t count : {1, 3}) {
        SampleReader r = SampleReader::Open(Model({In("x", DataType::kFloat, {-1, cols})}), d.str(), {-1, batch, count - 1, count});
        for (int pass = 0; pass < 2; ++pass) {
          std::map<std::string, Tensor> b;
          int64_t n = 0, row = count - 1;
          while (r.Next(&b, &n)) {
            const float* v = b.at("x").data<float>();
            for (int64_t i = 0; i < n; ++i, row += count) {
              ASSERT_EQ(v[i * cols], static_cast<float>(100 * row)) << cols << " " << batch << " " << count;
              ASSERT_EQ(v[i * cols + cols - 1], static_cast<float>(100 * row + cols - 1));
            }
          }
          EXPECT_GE(row, rows) << "every selected row was read";
          r.Rewind();
        }
      }
    }
  }
}

TEST(SampleReader, InputNamesWithSlashColonAndDotUseSanitizedFileNames) {
  TempDir d;
  WriteNpy(d / "a_b_c.d.npy", Rows(2, 2));
  SampleReader r = SampleReader::Open(Model({In("a/b:c.d", DataType::kFloat, {-1, 2})}), d.str(), {});
  EXPECT_EQ(RowsRead(r, "a/b:c.d"), (std::vector<int64_t>{0, 1}));
}

TEST(SampleReader, NpzArchivesOfEveryKindGiveTheSameSamples) {
  const Graph g = Model({In("images", DataType::kFloat, {-1, 2, 3}), In("ids", DataType::kInt64, {-1, 4}),
                         In("a/b:c.d", DataType::kFloat, {-1, 2})});
  for (const char* file : {"savez.npz", "savez_compressed.npz", "zip64.npz"}) {
    SampleReader r = SampleReader::Open(g, std::string(PTQ_SOURCE_DIR) + "/tests/data/npz/" + file, {-1, 2, 1, 2});
    EXPECT_EQ(r.num_samples(), 2) << file;  // samples 1 and 3 of 5
    std::map<std::string, Tensor> batch;
    int64_t n = 0;
    ASSERT_TRUE(r.Next(&batch, &n)) << file;
    EXPECT_EQ(n, 2);
    EXPECT_EQ(batch.at("images").shape(), (Shape{2, 2, 3}));
    EXPECT_EQ(batch.at("images").data<float>()[6 + 5], 312.0f);  // images[3, 1, 2]
    EXPECT_EQ(batch.at("ids").data<int64_t>()[1], 1001);          // ids[1, 1]
    EXPECT_EQ(batch.at("a/b:c.d").data<float>()[3], 7.0f);        // a/b:c.d[3, 1]
    EXPECT_FALSE(r.Next(&batch, &n));
  }
}

// test_data_set_<i>/input_0.pb (name "x") holds x with its first row 100 * i, and output_0.pb is ignored.
void WriteTestSet(const std::string& root, int i, const Tensor& x, const std::string& name = "x", const std::string& file = "input_0.pb") {
  const std::string dir = root + "/test_data_set_" + std::to_string(i);
  fs::create_directories(dir);
  onnx::TensorProto p;
  TensorToProto(x, name, &p);
  WriteFileAtomic(dir + "/" + file, p.SerializeAsString());
  WriteFileAtomic(dir + "/output_0.pb", "not read");
}

Tensor Sample(int i, int64_t rows = 1, int64_t cols = 2) {
  std::vector<float> v(static_cast<size_t>(rows * cols), static_cast<float>(100 * i));
  return Tensor::FromVector<float>({rows, cols}, v);
}

TEST(SampleReader, TestDataSetFoldersAreSamplesInNumericOrder) {
  TempDir d;
  for (int i = 0; i < 11; ++i) WriteTestSet(d.str(), i, Sample(i));
  SampleReader r = SampleReader::Open(Model({In("x", DataType::kFloat, {-1, 2})}), d.str(), {-1, 4, 0, 1});
  std::vector<int64_t> sizes;
  EXPECT_EQ(RowsRead(r, "x", &sizes), (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
  EXPECT_EQ(sizes, (std::vector<int64_t>{4, 4, 3}));
}

TEST(SampleReader, TestDataSetBatchesStopWhereShapesChange) {
  TempDir d;
  WriteTestSet(d.str(), 0, Sample(0, 1, 2));
  WriteTestSet(d.str(), 1, Sample(1, 1, 2));
  WriteTestSet(d.str(), 2, Sample(2, 1, 5));
  WriteTestSet(d.str(), 3, Sample(3, 2, 5));  // a folder holding a batch of 2 rows counts as one sample
  SampleReader r = SampleReader::Open(Model({In("x", DataType::kFloat, {-1, -1})}), d.str(), {-1, 8, 0, 1});
  std::map<std::string, Tensor> batch;
  int64_t n = 0;
  std::vector<Shape> shapes;
  while (r.Next(&batch, &n)) shapes.push_back(batch.at("x").shape());
  EXPECT_EQ(shapes, (std::vector<Shape>{{2, 2}, {3, 5}}));
}

TEST(SampleReader, TestDataSetMatchesByPositionWhenNamesDiffer) {
  TempDir d;
  WriteTestSet(d.str(), 0, Sample(0), "unnamed", "input_1.pb");
  WriteTestSet(d.str(), 0, Tensor::FromVector<int64_t>({1}, {5}), "ids", "input_0.pb");
  SampleReader r = SampleReader::Open(Model({In("ids", DataType::kInt64, {1}), In("x", DataType::kFloat, {1, 2})}), d.str(), {});
  std::map<std::string, Tensor> batch;
  int64_t n = 0;
  ASSERT_TRUE(r.Next(&batch, &n));
  EXPECT_EQ(batch.at("ids").data<int64_t>()[0], 5);
  EXPECT_EQ(batch.at("x").shape(), (Shape{1, 2}));
}

TEST(SampleReader, NanAndInfAreCountedAsWarningsNotErrors) {
  TempDir d;
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  WriteNpy(d / "x.npy", Tensor::FromVector<float>({3, 2}, {1, nan, -inf, 2, nan, inf}));
  SampleReader r = SampleReader::Open(Model({In("x", DataType::kFloat, {-1, 2})}), d.str(), {-1, 2, 0, 1});
  EXPECT_EQ(RowsRead(r, "x").size(), 3u);
  ASSERT_EQ(r.warnings().size(), 1u);
  EXPECT_NE(r.warnings()[0].find("'x' has 2 NaN and 2 infinite values"), std::string::npos) << r.warnings()[0];
}

// Expects Open to fail with an error containing every one of `parts`.
void ExpectOpenError(const Graph& g, const std::string& path, std::vector<std::string> parts, SampleOptions o = {}) {
  const std::string err = ErrorOf([&] { SampleReader::Open(g, path, o); });
  for (const std::string& p : parts) EXPECT_NE(err.find(p), std::string::npos) << "want '" << p << "' in: " << err;
}

TEST(SampleReaderErrors, FolderOfNpyChecksNamesBeforeReading) {
  TempDir d;
  WriteNpy(d / "x.npy", Rows(4, 3));
  const ValueInfo x = In("x", DataType::kFloat, {-1, 3});
  ExpectOpenError(Model({x, In("y", DataType::kFloat, {-1, 3})}), d.str(), {d.str(), "no data for model input(s) 'y' (expected y.npy)"});
  WriteNpy(d / "z.npy", Rows(4, 3));
  ExpectOpenError(Model({x}), d.str(), {d.str(), "z.npy match(es) no input"});
}

TEST(SampleReaderErrors, DtypeRankAndFixedDimsNameTheFileTheInputAndTheExpectation) {
  TempDir d;
  WriteNpy(d / "x.npy", Tensor(DataType::kDouble, {4, 3}));
  ExpectOpenError(Model({In("x", DataType::kFloat, {-1, 3})}), d.str(), {d / "x.npy", "model input 'x' expects float32 data but the file holds float64"});
  WriteNpy(d / "x.npy", Tensor(DataType::kFloat, {4, 3, 1}));
  ExpectOpenError(Model({In("x", DataType::kFloat, {-1, 3})}), d.str(), {d / "x.npy", "'x' has shape [N, 3] (rank 2) but the data has shape [4, 3, 1]"});
  WriteNpy(d / "x.npy", Tensor(DataType::kFloat, {4, 5}));
  ExpectOpenError(Model({In("x", DataType::kFloat, {-1, 3})}), d.str(), {d / "x.npy", "'x' has shape [N, 3]: dimension 1 must be 3 but the data has shape [4, 5]"});
  WriteNpy(d / "x.npy", Tensor(DataType::kFloat, {3}));
  ExpectOpenError(Model({In("x", DataType::kFloat, {4, 3})}), d.str(), {d / "x.npy", "rank"});
}

TEST(SampleReaderErrors, InputsMustAgreeOnSamplesAndSharedSymbolicDims) {
  TempDir d;
  WriteNpy(d / "x.npy", Rows(4, 3));
  WriteNpy(d / "y.npy", Rows(5, 3));
  ExpectOpenError(Model({In("x", DataType::kFloat, {-1, 3}), In("y", DataType::kFloat, {-1, 3})}), d.str(),
                  {"different numbers of samples", "x.npy has 4", "y.npy has 5"});
  WriteNpy(d / "y.npy", Rows(4, 2));
  ExpectOpenError(Model({In("x", DataType::kFloat, {-1, -1}), In("y", DataType::kFloat, {-1, -1})}), d.str(),
                  {d / "y.npy", "'y' has dimension 1 'S1' = 2 but input 'x' has 'S1' = 3"});
}

TEST(SampleReaderErrors, EmptyDataIsAnError) {
  TempDir d;
  const Graph g = Model({In("x", DataType::kFloat, {-1, 3})});
  ExpectOpenError(g, d.str(), {d.str(), "no samples"});
  ExpectOpenError(g, d / "missing", {"not found"});
  WriteNpy(d / "x.npy", Tensor(DataType::kFloat, {0, 3}));
  ExpectOpenError(g, d.str(), {d / "x.npy", "no samples for model input 'x'"});
  WriteNpy(d / "x.npy", Rows(3, 3));
  ExpectOpenError(g, d.str(), {"shard 3/4 selects none of the 3 samples"}, {-1, 1, 3, 4});
  fs::create_directories(d / "test_data_set_0");
  ExpectOpenError(g, d.str(), {"both .npy files and test_data_set_* folders"});
}

TEST(SampleReaderErrors, TruncatedNpyIsAnErrorBeforeAnyRead) {
  TempDir d;
  const std::string bytes = EncodeNpy(Rows(4, 3));
  WriteFileAtomic(d / "x.npy", bytes.substr(0, bytes.size() - 4));
  ExpectOpenError(Model({In("x", DataType::kFloat, {-1, 3})}), d.str(), {d / "x.npy", "holds 44 data bytes"});
  WriteFileAtomic(d / "x.npy", bytes.substr(0, 20));
  ExpectOpenError(Model({In("x", DataType::kFloat, {-1, 3})}), d.str(), {d / "x.npy", "truncated .npy header"});
}

TEST(SampleReaderErrors, BadOptionsAreUsageErrors) {
  TempDir d;
  WriteNpy(d / "x.npy", Rows(3, 3));
  for (const SampleOptions& o : {SampleOptions{-1, 0, 0, 1}, SampleOptions{0, 1, 0, 1}, SampleOptions{-1, 1, 2, 2}}) {
    try {
      SampleReader::Open(Model({In("x", DataType::kFloat, {-1, 3})}), d.str(), o);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kUsage) << e.what();
    }
  }
}

TEST(SampleReaderErrors, NpzKeysMustMatchTheInputs) {
  const std::string npz = std::string(PTQ_SOURCE_DIR) + "/tests/data/npz/savez_compressed.npz";
  const ValueInfo images = In("images", DataType::kFloat, {-1, 2, 3}), ids = In("ids", DataType::kInt64, {-1, 4});
  ExpectOpenError(Model({images, ids}), npz, {npz, "key(s) 'a/b:c.d' match(es) no input"});
  ExpectOpenError(Model({images, ids, In("a/b:c.d", DataType::kFloat, {-1, 2}), In("z", DataType::kFloat, {-1})}), npz,
                  {npz, "no data for model input(s) 'z'"});
  ExpectOpenError(Model({images, In("ids", DataType::kInt32, {-1, 4}), In("a/b:c.d", DataType::kFloat, {-1, 2})}), npz,
                  {npz + ":ids", "expects int32 data but the file holds int64"});
}

TEST(SampleReaderErrors, TestDataSetFoldersAreCheckedFileByFile) {
  TempDir d;
  const Graph g = Model({In("x", DataType::kFloat, {-1, 2}), In("y", DataType::kFloat, {-1, 2})});
  WriteTestSet(d.str(), 0, Sample(0), "x", "input_0.pb");
  WriteTestSet(d.str(), 0, Sample(0), "y", "input_1.pb");
  WriteTestSet(d.str(), 1, Sample(1), "x", "input_0.pb");
  ExpectOpenError(g, d.str(), {d / "test_data_set_1", "no data for model input(s) 'y'"});
  WriteTestSet(d.str(), 1, Sample(1, 1, 3), "y", "input_1.pb");
  ExpectOpenError(g, d.str(), {d / "test_data_set_1/input_1.pb", "dimension 1 must be 2"});
  WriteTestSet(d.str(), 1, Sample(1), "y", "input_1.pb");
  WriteTestSet(d.str(), 1, Sample(1), "w", "input_2.pb");
  ExpectOpenError(g, d.str(), {d / "test_data_set_1/input_2.pb", "tensor 'w' matches no input"});
}

}  // namespace
}  // namespace ptq
