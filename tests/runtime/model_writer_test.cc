// Tests of writing a model with external data: the data file's layout and hash name, inline or external
// by size and mode, round trips through ptq's loader and ONNX's checker, and no stale data file.
#include "runtime/model_writer.h"

#include <gtest/gtest.h>
#include <onnx/checker.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>

#include "runtime/external_data_writer.h"
#include "runtime/graph.h"
#include "runtime/mapped_file.h"
#include "runtime/model_io.h"
#include "runtime/session.h"
#include "runtime/sha256.h"
#include "runtime/tensor_proto.h"
#include "tests/cli/cli_test_util.h"
#include "tests/error_of.h"
#include "tests/runtime/model_builder.h"

namespace ptq {
namespace {

namespace fs = std::filesystem;
using testing::ErrorOf;
using testing::ModelBuilder;
using testing::ReadText;
using testing::TempDir;

// y = x·W + b with W [64, 32] (8 KiB: external) and b [32] (128 bytes: inline), values from `seed`.
onnx::ModelProto MatMulModel(float seed, ExternalDataWriter* data) {
  ModelBuilder b(13);
  b.Input("x", DataType::kFloat, {2, 64}).Output("y", DataType::kFloat, {2, 32});
  std::vector<float> w(64 * 32), bias(32);
  for (size_t i = 0; i < w.size(); ++i) w[i] = seed * static_cast<float>(static_cast<int>(i % 17) - 8) / 8.0f;
  for (size_t i = 0; i < bias.size(); ++i) bias[i] = seed + static_cast<float>(i);
  data->Put(Tensor::FromVector<float>({64, 32}, w), "W", b.model().mutable_graph()->add_initializer());
  data->Put(Tensor::FromVector<float>({32}, bias), "B", b.model().mutable_graph()->add_initializer());
  b.Node("MatMul", {"x", "W"}, {"xw"});
  b.Node("Add", {"xw", "B"}, {"y"});
  return b.model();
}

std::vector<float> Outputs(const Graph& g) {
  std::vector<float> x(2 * 64);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 5) - 2.0f;
  Session s(std::make_shared<const Graph>(g));
  return s.Run({{"x", Tensor::FromVector<float>({2, 64}, x)}})[0].ToFloatVector();
}

std::string Location(const onnx::TensorProto& t) {
  for (const auto& e : t.external_data()) {
    if (e.key() == "location") return e.value();
  }
  return "";
}

class ModelWriter : public ::testing::Test {
 protected:
  std::string Path() const { return (tmp_.path() / "m.int8.onnx").string(); }
  // Writes MatMulModel(seed) to Path() with `mode`; returns what was written.
  WrittenModel Write(float seed, ExternalDataMode mode, int64_t inline_limit = kProtobufLimitBytes) {
    ExternalDataWriter data(Path());
    onnx::ModelProto m = MatMulModel(seed, &data);
    expected_ = Outputs(GraphFromModel(m, data.folder(), "in memory"));
    AtomicFileSet files;
    const WrittenModel w = AddModelFiles(&files, std::move(m), &data, Path(), mode, inline_limit);
    files.Commit();
    RemoveStaleDataFiles(Path(), w);
    return w;
  }
  std::vector<std::string> Files() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(tmp_.path())) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }
  TempDir tmp_;
  std::vector<float> expected_;
};

TEST_F(ModelWriter, LargeTensorsGoToAPageAlignedDataFileNamedForItsHash) {
  ExternalDataWriter data(Path());
  const onnx::ModelProto m = MatMulModel(1.0f, &data);
  const onnx::TensorProto& w = m.graph().initializer(0);
  const onnx::TensorProto& b = m.graph().initializer(1);
  ASSERT_EQ(w.data_location(), onnx::TensorProto::EXTERNAL);
  EXPECT_EQ(Location(w), data.location());
  EXPECT_EQ(b.data_location(), onnx::TensorProto::DEFAULT);  // 128 bytes stay inline
  EXPECT_EQ(b.raw_data().size(), 128u);
  ModelBuilder other(13);
  data.Put(Tensor(DataType::kInt8, {5000}), "second", other.model().mutable_graph()->add_initializer());
  const onnx::TensorProto& second = other.model().graph().initializer(0);
  EXPECT_EQ(second.external_data(1).key(), "offset");
  EXPECT_EQ(std::stoll(second.external_data(1).value()) % ExternalDataWriter::kAlignment, 0);
  EXPECT_EQ(second.external_data(1).value(), "12288");  // after W's 8 KiB and its 64 over-read bytes, page-aligned
  AtomicFileSet files;
  const std::string name = data.CommitTo(&files);
  files.Commit();
  const std::string bytes = ReadText(tmp_.path() / name);
  EXPECT_EQ(name, "m.int8." + Sha256Hex(bytes).substr(0, 16) + ".data");
  EXPECT_EQ(static_cast<int64_t>(bytes.size()), data.bytes());
  EXPECT_EQ(bytes.size() % ExternalDataWriter::kAlignment, 0u);
  EXPECT_GE(bytes.size(), 12288u + 5000u + 64u);  // room for the kernels' over-read past the last tensor
}

TEST_F(ModelWriter, ExternalOutputRoundTripsThroughPtqAndTheOnnxChecker) {
  const WrittenModel w = Write(1.0f, ExternalDataMode::kAlways);
  ASSERT_FALSE(w.data_file.empty());
  EXPECT_EQ(Files(), (std::vector<std::string>{w.data_file, "m.int8.onnx"}));  // no temporary file left
  EXPECT_EQ(w.model_bytes, static_cast<int64_t>(fs::file_size(Path())));
  onnx::ModelProto loaded;
  LoadModelProto(Path(), &loaded);
  EXPECT_EQ(Location(loaded.graph().initializer(0)), w.data_file);  // relative: the name beside the model
  EXPECT_NO_THROW(onnx::checker::check_model(Path()));
  const Graph g = LoadGraph(Path());
  EXPECT_TRUE(IsMappedBuffer(g.constants.at("W").buffer()));
  EXPECT_EQ(Outputs(g), expected_);
}

TEST_F(ModelWriter, SmallModelsAreWrittenInlineAndTheDataFileIsDropped) {
  const WrittenModel w = Write(1.0f, ExternalDataMode::kAuto);
  EXPECT_TRUE(w.data_file.empty());
  EXPECT_EQ(w.data_bytes, 0);
  EXPECT_EQ(Files(), (std::vector<std::string>{"m.int8.onnx"}));
  onnx::ModelProto loaded;
  LoadModelProto(Path(), &loaded);
  EXPECT_EQ(loaded.graph().initializer(0).data_location(), onnx::TensorProto::DEFAULT);
  EXPECT_EQ(loaded.graph().initializer(0).raw_data().size(), 64u * 32u * 4u);
  EXPECT_NO_THROW(onnx::checker::check_model(loaded));
  EXPECT_EQ(Outputs(LoadGraph(Path())), expected_);
  EXPECT_EQ(ReadText(Path()), SerializeModelProto(loaded, "m"));  // the bytes of the model serialized whole
}

TEST_F(ModelWriter, AutoGoesExternalOverTheLimitAndNeverRefusesIt) {
  const WrittenModel w = Write(1.0f, ExternalDataMode::kAuto, /*inline_limit=*/4096);
  EXPECT_FALSE(w.data_file.empty());
  const std::vector<float> written = expected_;
  EXPECT_EQ(Outputs(LoadGraph(Path())), written);
  const std::string err = ErrorOf([&] { Write(2.0f, ExternalDataMode::kNever, 4096); }, ErrorKind::kUsage);
  EXPECT_NE(err.find("output_external_data"), std::string::npos) << err;
  EXPECT_EQ(Outputs(LoadGraph(Path())), written);  // the model written before is untouched
  EXPECT_EQ(Files(), (std::vector<std::string>{w.data_file, "m.int8.onnx"}));
}

// A second model written to the same path has another data file; the model never refers to the first,
// which is removed; files that only look alike stay.
TEST_F(ModelWriter, ANewModelNeverRefersToAStaleDataFile) {
  std::ofstream(tmp_.path() / "m.int8.data") << "not ours";
  std::ofstream(tmp_.path() / "m.int8.onnx.0123456789abcdef.data") << "not ours either";
  const WrittenModel first = Write(1.0f, ExternalDataMode::kAlways);
  const std::vector<float> first_outputs = expected_;
  const WrittenModel second = Write(2.0f, ExternalDataMode::kAlways);
  EXPECT_NE(first.data_file, second.data_file);
  EXPECT_FALSE(fs::exists(tmp_.path() / first.data_file));
  EXPECT_TRUE(fs::exists(tmp_.path() / second.data_file));
  EXPECT_TRUE(fs::exists(tmp_.path() / "m.int8.data"));
  EXPECT_TRUE(fs::exists(tmp_.path() / "m.int8.onnx.0123456789abcdef.data"));
  const std::vector<float> y = Outputs(LoadGraph(Path()));
  EXPECT_EQ(y, expected_);
  EXPECT_NE(y, first_outputs);
  // The same model again: the same data file name (the name is the content's).
  EXPECT_EQ(Write(2.0f, ExternalDataMode::kAlways).data_file, second.data_file);
}

TEST(ExternalDataModes, ParseAndNameTheConfigValues) {
  for (auto m : {ExternalDataMode::kAuto, ExternalDataMode::kAlways, ExternalDataMode::kNever}) {
    EXPECT_EQ(ParseExternalDataMode(ExternalDataModeName(m), "k"), m);
  }
  const std::string err = ErrorOf([] { ParseExternalDataMode("sometimes", "output_external_data"); }, ErrorKind::kUsage);
  EXPECT_NE(err.find("'output_external_data'"), std::string::npos) << err;
}

}  // namespace
}  // namespace ptq
