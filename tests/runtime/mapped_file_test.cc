// Tests of mapped external data: which tensors are mapped rather than copied, that mapped and copied
// tensors hold the file's bytes, and that only copies are charged to the model's memory budget.
#include "runtime/mapped_file.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "runtime/graph.h"
#include "runtime/tensor_proto.h"
#include "tests/error_of.h"
#include "tests/runtime/model_builder.h"

namespace ptq {
namespace {

namespace fs = std::filesystem;
using testing::ErrorOf;
using testing::ModelBuilder;

class MappedExternalData : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ptq_mapped_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    bytes_.resize(3 * 4096);
    for (size_t i = 0; i < bytes_.size(); ++i) bytes_[i] = static_cast<char>(i * 31 + i / 7);
    std::ofstream(dir_ / "w.bin", std::ios::binary).write(bytes_.data(), static_cast<std::streamsize>(bytes_.size()));
  }
  void TearDown() override {
    SetMaxModelBytes(model_bytes_);
    fs::remove_all(dir_);
  }

  // An initializer `name` of `count` floats at `offset` of w.bin.
  static void AddExternal(ModelBuilder* b, const std::string& name, int64_t count, int64_t offset) {
    auto* t = b->model().mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    t->add_dims(count);
    t->set_data_location(onnx::TensorProto::EXTERNAL);
    for (const auto& [k, v] : {std::pair<std::string, std::string>{"location", "w.bin"}, {"offset", std::to_string(offset)}}) {
      auto* e = t->add_external_data();
      e->set_key(k);
      e->set_value(v);
    }
  }

  // Whether `t` holds the bytes of w.bin from `offset`.
  bool HoldsFileBytes(const Tensor& t, int64_t offset) const {
    return std::memcmp(t.raw(), bytes_.data() + offset, t.nbytes()) == 0;
  }

  fs::path dir_;
  std::string bytes_;
  const int64_t model_bytes_ = MaxModelBytes();
};

TEST_F(MappedExternalData, AlignedDataIsMappedAndHoldsTheFileBytes) {
  ModelBuilder b(13);
  AddExternal(&b, "page", 1024, 4096);  // a whole page
  AddExternal(&b, "inside", 100, 4100);  // mid-page, 4-byte aligned
  const Graph g = GraphFromModel(b.model(), dir_.string(), "m.onnx");
  for (const auto& [name, offset] : {std::pair<std::string, int64_t>{"page", 4096}, {"inside", 4100}}) {
    const Tensor& t = g.constants.at(name);
    EXPECT_TRUE(IsMappedBuffer(t.buffer())) << name;
    EXPECT_TRUE(HoldsFileBytes(t, offset)) << name;
    DropResidentPages(t.buffer());  // read again from the page cache
    EXPECT_TRUE(HoldsFileBytes(t, offset)) << name;
  }
}

TEST_F(MappedExternalData, TheSameRangeMappedTwiceSharesOneMapping) {
  const std::string file = (dir_ / "w.bin").string();
  const std::shared_ptr<void> a = MapFileRange(file, 100, 400);
  EXPECT_EQ(MapFileRange(file, 100, 400), a);
  EXPECT_NE(MapFileRange(file, 104, 400), a);
  ModelBuilder b(13);
  AddExternal(&b, "w", 100, 100);
  const Graph g1 = GraphFromModel(b.model(), dir_.string(), "m.onnx");
  const Graph g2 = GraphFromModel(b.model(), dir_.string(), "m.onnx");
  EXPECT_EQ(g1.constants.at("w").raw(), g2.constants.at("w").raw());
  EXPECT_EQ(g1.constants.at("w").raw(), a.get());
}

TEST_F(MappedExternalData, MisalignedOrEndOfFileDataIsCopied) {
  ModelBuilder b(13);
  AddExternal(&b, "odd", 16, 2);                 // offset not a multiple of 4
  AddExternal(&b, "last", 1024, 2 * 4096);       // ends at the end of the file: no room for the over-read
  AddExternal(&b, "near_end", 1000, 2 * 4096 + 64);  // 32 bytes before the end: not enough either
  const Graph g = GraphFromModel(b.model(), dir_.string(), "m.onnx");
  for (const auto& [name, offset] : {std::pair<std::string, int64_t>{"odd", 2}, {"last", 2 * 4096}, {"near_end", 2 * 4096 + 64}}) {
    const Tensor& t = g.constants.at(name);
    EXPECT_FALSE(IsMappedBuffer(t.buffer())) << name;
    EXPECT_TRUE(HoldsFileBytes(t, offset)) << name;
  }
}

TEST_F(MappedExternalData, DecodingForAWriterCopiesUnlessAskedToMap) {
  ModelBuilder b(13);
  AddExternal(&b, "w", 1024, 0);
  const onnx::TensorProto& p = b.model().graph().initializer(0);
  EXPECT_FALSE(IsMappedBuffer(TensorFromProto(p, dir_.string(), "w").buffer()));  // may be changed in place
  EXPECT_TRUE(IsMappedBuffer(TensorFromProto(p, dir_.string(), "w", nullptr, ExternalRead::kMap).buffer()));
}

// Mapped constants are the file's bytes in the page cache: three of them over the same 4 KiB are not
// held to the budget; copied ones (misaligned) are, and the third is refused before it is allocated.
TEST_F(MappedExternalData, OnlyCopiesAreChargedToTheModelBudget) {
  ModelBuilder mapped(13), copied(13);
  for (const char* name : {"a", "b", "c"}) {
    AddExternal(&mapped, name, 1024, 0);
    AddExternal(&copied, name, 1024, 2);
  }
  SetMaxModelBytes(static_cast<int64_t>(copied.model().SpaceUsedLong()) + 2 * 4096 + 100);
  EXPECT_EQ(ErrorOf([&] { GraphFromModel(mapped.model(), dir_.string(), "m.onnx"); }), "");
  const std::string err = ErrorOf([&] { GraphFromModel(copied.model(), dir_.string(), "m.onnx"); });
  EXPECT_NE(err.find("initializer 'c'"), std::string::npos) << err;
  EXPECT_NE(err.find("model's memory limit"), std::string::npos) << err;
}

TEST(MapFileRange, ChecksWhereTheOverReadFits) {
  EXPECT_TRUE(CanMapWithOverread(0, 100, 4096));
  EXPECT_TRUE(CanMapWithOverread(0, 4096 - 64, 4096));
  EXPECT_FALSE(CanMapWithOverread(0, 4096 - 63, 4096));
  EXPECT_TRUE(CanMapWithOverread(0, 4096, 4097));  // the last page reads as zeros past the file's end
  EXPECT_FALSE(CanMapWithOverread(0, 0, 4096));
  EXPECT_FALSE(CanMapWithOverread(-1, 10, 4096));
}

TEST(MapFileRange, AMissingFileIsAnInputErrorNamingIt) {
  const std::string err = ErrorOf([] { MapFileRange("/nonexistent/ptq/w.bin", 0, 16); });
  EXPECT_NE(err.find("/nonexistent/ptq/w.bin"), std::string::npos) << err;
}

}  // namespace
}  // namespace ptq
