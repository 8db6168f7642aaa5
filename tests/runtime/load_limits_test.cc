// Tests of the memory limits of model and tensor loading: the model budget (MaxModelBytes), the parsed-size
// estimate made before protobuf parsing, and TensorProto files; each refusal comes before the allocation.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "runtime/feeds.h"
#include "runtime/graph.h"
#include "runtime/model_io.h"
#include "runtime/tensor_proto.h"
#include "tests/error_of.h"
#include "tests/runtime/model_builder.h"

namespace ptq {
namespace {

namespace fs = std::filesystem;
using testing::ModelBuilder;

using testing::ErrorOf;

class LoadLimits : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ptq_limits_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override {
    SetMaxModelBytes(model_bytes_);
    SetMaxTensorBytes(tensor_bytes_);
    fs::remove_all(dir_);
  }
  fs::path dir_;
  const int64_t model_bytes_ = MaxModelBytes(), tensor_bytes_ = MaxTensorBytes();
};

TEST_F(LoadLimits, DefaultModelBudgetIsPositive) { EXPECT_GT(MaxModelBytes(), int64_t{1} << 28); }

// Three initializers read the same 4 KiB of external data: each fits the file, together they exceed
// the budget, and the third is refused before it is allocated.
TEST_F(LoadLimits, ConstantsTogetherAreHeldToTheModelBudget) {
  std::ofstream(dir_ / "w.bin", std::ios::binary) << std::string(4096, '\1');
  ModelBuilder b(13);
  for (const char* name : {"a", "b", "c"}) {
    auto* t = b.model().mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    t->add_dims(1024);
    t->set_data_location(onnx::TensorProto::EXTERNAL);
    auto* kv = t->add_external_data();
    kv->set_key("location");
    kv->set_value("w.bin");
  }
  EXPECT_EQ(ErrorOf([&] { GraphFromModel(b.model(), dir_.string(), "m.onnx"); }), "");
  SetMaxModelBytes(static_cast<int64_t>(b.model().SpaceUsedLong()) + 2 * 4096 + 100);
  const std::string err = ErrorOf([&] { GraphFromModel(b.model(), dir_.string(), "m.onnx"); });
  EXPECT_NE(err.find("initializer 'c'"), std::string::npos) << err;
  EXPECT_NE(err.find("model's memory limit"), std::string::npos) << err;
}

TEST_F(LoadLimits, GraphStructureIsHeldToTheModelBudget) {
  ModelBuilder b(13);
  b.Input("x0", DataType::kFloat, {1}).Output("x2000", DataType::kFloat, {1});
  for (int i = 0; i < 2000; ++i) b.Node("Relu", {"x" + std::to_string(i)}, {"x" + std::to_string(i + 1)});
  const std::string bytes = b.Serialize();
  const int64_t estimate = EstimateParsedBytes(bytes, onnx::ModelProto::descriptor());
  const auto actual = static_cast<int64_t>(b.model().SpaceUsedLong());
  EXPECT_GT(estimate, actual / 3) << actual;  // the estimate is of the right order
  EXPECT_LT(estimate, actual * 3) << actual;
  onnx::ModelProto m;
  SetMaxModelBytes(estimate - 1);
  const std::string err = ErrorOf([&] { ParseModelProto(bytes, "many.onnx", &m); });
  EXPECT_NE(err.find("many.onnx: the model would need about"), std::string::npos) << err;
  SetMaxModelBytes(estimate);
  EXPECT_EQ(ErrorOf([&] { ParseModelProto(bytes, "many.onnx", &m); }), "");
  SetMaxModelBytes(actual / 2);
  EXPECT_NE(ErrorOf([&] { GraphFromModel(m, "", "many.onnx"); }).find("the graph structure needs about"), std::string::npos);
}

TEST_F(LoadLimits, EstimateCountsTinyRepeatedEntriesAtTheirParsedCost) {
  // 100,000 empty node inputs: 2 bytes each on the wire, a std::string each once parsed.
  onnx::ModelProto m;
  auto* n = m.mutable_graph()->add_node();
  for (int i = 0; i < 100000; ++i) n->add_input("");
  const std::string bytes = m.SerializeAsString();
  EXPECT_LT(bytes.size(), 210000u);
  EXPECT_GT(EstimateParsedBytes(bytes, onnx::ModelProto::descriptor()), int64_t{100000} * 32);
}

TEST_F(LoadLimits, MalformedBytesMakeTheEstimateFailClosed) {
  // A length past the end, a group never closed, an end-group tag at the top, a zero tag.
  for (const std::string& bytes : {std::string("\x3a\xff\xff\xff\xff\x0f", 6), std::string("\x0b"),
                                   std::string("\x08\x07\x0c", 3), std::string("\x08\x07\x00", 3)}) {
    EXPECT_EQ(EstimateParsedBytes(bytes, onnx::ModelProto::descriptor()), -1);
    onnx::ModelProto m;
    EXPECT_NE(ErrorOf([&] { ParseModelProto(bytes, "bad.onnx", &m); }).find("bad.onnx: not a valid ONNX model"),
              std::string::npos);
  }
  EXPECT_GT(EstimateParsedBytes("", onnx::ModelProto::descriptor()), 0);  // an empty message is valid
}

TEST_F(LoadLimits, AnUnknownGroupDoesNotEndTheEstimate) {
  // libprotobuf keeps a group as an unknown field and parses on: the nodes after it must be counted.
  onnx::ModelProto many;
  for (int i = 0; i < 20000; ++i) many.mutable_graph()->add_node();
  const std::string nodes = many.SerializeAsString();
  const std::string group("\xbb\x3e\x08\x01\xbc\x3e", 6);  // field 999: start group, {1: 1}, end group
  const std::string bytes = std::string("\x08\x07", 2) + group + nodes;
  onnx::ModelProto check;
  ASSERT_TRUE(check.ParseFromString(bytes));  // the parser accepts it...
  ASSERT_EQ(check.graph().node_size(), 20000);
  const int64_t estimate = EstimateParsedBytes(bytes, onnx::ModelProto::descriptor());
  EXPECT_GT(estimate, EstimateParsedBytes(nodes, onnx::ModelProto::descriptor()));  // ...so the estimate counts on
  SetMaxModelBytes(estimate / 2);
  onnx::ModelProto m;
  EXPECT_NE(ErrorOf([&] { ParseModelProto(bytes, "group.onnx", &m); }).find("group.onnx: the model would need about"),
            std::string::npos);
}

TEST_F(LoadLimits, PackedFloatsAreChargedTheirOwnSize) {
  // float_data is packed fixed32: 4 wire bytes are 4 bytes parsed (not 8 per wire byte).
  onnx::TensorProto t;
  for (int i = 0; i < 250000; ++i) t.add_float_data(0.5f);
  const std::string bytes = t.SerializeAsString();
  const int64_t estimate = EstimateParsedBytes(bytes, onnx::TensorProto::descriptor());
  EXPECT_GE(estimate, 1000000);
  EXPECT_LT(estimate, 1100000);
}

TEST_F(LoadLimits, TensorProtoFileOverTheTensorLimitIsRefusedBeforeParsing) {
  onnx::TensorProto p;
  TensorToProto(Tensor(DataType::kFloat, {1 << 19}), "x", &p);  // 2 MiB of raw data
  std::ofstream(dir_ / "input_0.pb", std::ios::binary) << p.SerializeAsString();
  SetMaxTensorBytes(1024);
  const std::string err = ErrorOf([&] { ReadTensorProtoFile((dir_ / "input_0.pb").string()); });
  EXPECT_NE(err.find("input_0.pb: the TensorProto would need about"), std::string::npos) << err;
}

TEST_F(LoadLimits, TypedFieldsAreCountedBeforeAllocating) {
  onnx::TensorProto p;
  p.set_data_type(onnx::TensorProto::INT8);
  p.add_dims(int64_t{1} << 40);
  p.add_int32_data(1);
  EXPECT_NE(ErrorOf([&] { TensorFromProto(p, "", "t"); }).find("t: int32_data has 1 values"), std::string::npos);
  p.clear_dims();
  p.add_dims(-3);
  EXPECT_NE(ErrorOf([&] { TensorFromProto(p, "", "t"); }).find("t: negative dimension"), std::string::npos);
}

TEST_F(LoadLimits, OverLongInputNumberInPbFileNamesIsAnInputError) {
  ModelBuilder b(13);
  b.Input("x", DataType::kFloat, {1});
  onnx::TensorProto p;
  TensorToProto(Tensor(DataType::kFloat, {1}), "x", &p);
  std::ofstream(dir_ / "input_99999999999999999999.pb", std::ios::binary) << p.SerializeAsString();
  const Graph g = GraphFromModel(b.model(), "", "m.onnx");
  const std::string err = ErrorOf([&] { ReadFeedsFolder(g, dir_.string()); });
  EXPECT_NE(err.find("expected a file named input_<N>.pb"), std::string::npos) << err;
}

}  // namespace
}  // namespace ptq
