// Tests of external data: the path rule (inside the model's folder, symbolic links resolved) and the
// size checks made before anything is allocated.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "runtime/graph.h"
#include "runtime/tensor_proto.h"
#include "tests/error_of.h"
#include "tests/runtime/model_builder.h"

namespace ptq {
namespace {

namespace fs = std::filesystem;
using testing::ModelBuilder;

using testing::ErrorOf;

// root/model/{weights.bin, sub/deep/nested.bin}, root/secret.bin, and links made by the tests.
class ExternalDataPaths : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("ptq_extpath_" + std::to_string(::getpid()) + "_" +
                                          ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_ / "model" / "sub" / "deep");
    Write(root_ / "model" / "weights.bin", 64);
    Write(root_ / "model" / "sub" / "deep" / "nested.bin", 64);
    Write(root_ / "secret.bin", 64);
  }
  void TearDown() override { fs::remove_all(root_); }

  static void Write(const fs::path& p, size_t n) {
    std::string bytes(n, '\0');
    for (size_t i = 0; i < n; ++i) bytes[i] = static_cast<char>(i);
    std::ofstream(p, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(n));
  }

  // Loads a model whose initializer 'w' (float [4]) lives at `location`; returns the error ("" if none).
  std::string Load(const std::string& location, const std::vector<std::pair<std::string, std::string>>& extra = {},
                   int64_t elements = 4) {
    ModelBuilder b(13);
    b.Output("w", DataType::kFloat, {elements});
    auto* init = b.model().mutable_graph()->add_initializer();
    init->set_name("w");
    init->set_data_type(onnx::TensorProto::FLOAT);
    init->add_dims(elements);
    init->set_data_location(onnx::TensorProto::EXTERNAL);
    auto* kv = init->add_external_data();
    kv->set_key("location");
    kv->set_value(location);
    for (const auto& [k, v] : extra) {
      auto* e = init->add_external_data();
      e->set_key(k);
      e->set_value(v);
    }
    return ErrorOf([&] { loaded_ = GraphFromModel(b.model(), (root_ / "model").string(), "m.onnx").constants.at("w"); });
  }

  fs::path root_;
  Tensor loaded_;
};

TEST_F(ExternalDataPaths, NestedRelativePathInsideTheFolderLoads) {
  EXPECT_EQ(Load("sub/deep/nested.bin"), "");
  ASSERT_EQ(loaded_.size(), 4);
  EXPECT_EQ(Load("./sub//deep/nested.bin"), "");
}

TEST_F(ExternalDataPaths, SymbolicLinkThatStaysInsideLoads) {
  fs::create_symlink("sub/deep/nested.bin", root_ / "model" / "alias.bin");
  EXPECT_EQ(Load("alias.bin"), "");
}

TEST_F(ExternalDataPaths, AbsolutePathIsRefusedNamingTensorAndLocation) {
  const std::string err = Load((root_ / "model" / "weights.bin").string());  // absolute even when inside
  EXPECT_NE(err.find("initializer 'w'"), std::string::npos) << err;
  EXPECT_NE(err.find("is an absolute path"), std::string::npos) << err;
  EXPECT_NE(Load("/etc/passwd").find("'/etc/passwd' is an absolute path"), std::string::npos);
}

TEST_F(ExternalDataPaths, DotDotIsRefusedEvenWhenItComesBack) {
  for (const std::string loc : {"../secret.bin", "sub/../../secret.bin", "sub/../weights.bin"}) {
    const std::string err = Load(loc);
    EXPECT_NE(err.find("initializer 'w'"), std::string::npos) << loc << ": " << err;
    EXPECT_NE(err.find("'" + loc + "' has a '..' component"), std::string::npos) << loc << ": " << err;
  }
}

TEST_F(ExternalDataPaths, SymbolicLinkLeadingOutIsRefused) {
  fs::create_symlink(root_ / "secret.bin", root_ / "model" / "link.bin");
  const std::string err = Load("link.bin");
  EXPECT_NE(err.find("initializer 'w'"), std::string::npos) << err;
  EXPECT_NE(err.find("'link.bin' resolves to"), std::string::npos) << err;
  EXPECT_NE(err.find("outside the model's folder"), std::string::npos) << err;
}

TEST_F(ExternalDataPaths, SymbolicLinkedFolderLeadingOutIsRefused) {
  fs::create_directory_symlink(root_, root_ / "model" / "up");
  EXPECT_NE(Load("up/secret.bin").find("outside the model's folder"), std::string::npos);
  fs::create_directory_symlink("/etc", root_ / "model" / "etc");
  EXPECT_NE(Load("etc/passwd").find("outside the model's folder"), std::string::npos);
}

TEST_F(ExternalDataPaths, TheFolderItselfAndMissingFilesAreErrors) {
  EXPECT_NE(Load(".").find("outside the model's folder"), std::string::npos);
  EXPECT_NE(Load("sub").find("not a regular file"), std::string::npos);
  EXPECT_NE(Load("missing.bin").find("cannot open"), std::string::npos);
  EXPECT_NE(Load("").find("external data has no location"), std::string::npos);
}

TEST_F(ExternalDataPaths, ExternalDataNeedsAModelFolder) {
  ModelBuilder b(13);
  auto* init = b.model().mutable_graph()->add_initializer();
  init->set_name("w");
  init->set_data_type(onnx::TensorProto::FLOAT);
  init->set_data_location(onnx::TensorProto::EXTERNAL);
  auto* kv = init->add_external_data();
  kv->set_key("location");
  kv->set_value("weights.bin");
  const std::string err = ErrorOf([&] { GraphFromModel(b.model(), "", "m.onnx"); });
  EXPECT_NE(err.find("external data is not allowed here"), std::string::npos) << err;
}

TEST_F(ExternalDataPaths, OffsetAndLengthAreCheckedAgainstTheFile) {
  EXPECT_EQ(Load("weights.bin", {{"offset", "48"}, {"length", "16"}}), "");
  EXPECT_EQ(loaded_.size(), 4);
  EXPECT_NE(Load("weights.bin", {{"offset", "56"}}).find("has 64 bytes; need 16 at offset 56"), std::string::npos);
  EXPECT_NE(Load("weights.bin", {{"length", "12"}}).find("length 12 does not match"), std::string::npos);
  for (const std::string bad : {"-8", "12abc", "", "99999999999999999999", "0x10"}) {
    EXPECT_NE(Load("weights.bin", {{"offset", bad}}).find("must be a non-negative integer"), std::string::npos) << bad;
  }
}

TEST_F(ExternalDataPaths, HugeDeclaredShapeIsRefusedBeforeAllocating) {
  // 2^61 floats: the byte count overflows int64; 2^40 floats: more than the file holds.
  EXPECT_NE(Load("weights.bin", {}, int64_t{1} << 61).find("more bytes than int64 can count"), std::string::npos);
  const std::string err = Load("weights.bin", {}, int64_t{1} << 40);
  EXPECT_NE(err.find("initializer 'w'"), std::string::npos) << err;
  EXPECT_NE(err.find("has 64 bytes; need"), std::string::npos) << err;
}

TEST_F(ExternalDataPaths, TensorProtoFilesResolveAgainstTheirFolder) {
  onnx::TensorProto p;
  p.set_name("x");
  p.set_data_type(onnx::TensorProto::FLOAT);
  p.add_dims(4);
  p.set_data_location(onnx::TensorProto::EXTERNAL);
  auto* kv = p.add_external_data();
  kv->set_key("location");
  kv->set_value("weights.bin");
  const fs::path pb = root_ / "model" / "input_0.pb";
  std::ofstream(pb, std::ios::binary) << p.SerializeAsString();
  EXPECT_EQ(ReadTensorProtoFile(pb.string()).size(), 4);
  kv->set_value("../secret.bin");
  std::ofstream(pb, std::ios::binary | std::ios::trunc) << p.SerializeAsString();
  EXPECT_NE(ErrorOf([&] { ReadTensorProtoFile(pb.string()); }).find("has a '..' component"), std::string::npos);
}

}  // namespace
}  // namespace ptq
