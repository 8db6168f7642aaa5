// Out of memory is its own error: ptq run under an address-space limit (RLIMIT_AS) in a child process
// exits with code 2 and says that memory ran out, at which stage and how much was in use, whether an
// allocation or a mapping of external data failed; never "not valid ONNX" or an internal error.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/buffer_pool.h"
#include "runtime/npy.h"
#include "tests/cli/cli_test_util.h"
#include "tests/runtime/model_builder.h"

namespace ptq {
namespace {

namespace fs = std::filesystem;
using testing::ModelBuilder;
using testing::ReadText;
using testing::RunPtq;
using testing::TempDir;

constexpr int64_t kLimit = int64_t{2} << 30;          // the child's address space
constexpr int64_t kTableRows = int64_t{1} << 21;      // x 1024 floats: an 8 GiB embedding table
constexpr int64_t kTableBytes = kTableRows * 1024 * 4;

// Runs ptq with `args` in a child whose address space is limited to kLimit; returns (exit code, output).
testing::CommandResult RunLimited(const std::vector<std::string>& args, const fs::path& log) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    const rlimit limit{static_cast<rlim_t>(kLimit), static_cast<rlim_t>(kLimit)};
    ::setrlimit(RLIMIT_AS, &limit);
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    std::vector<char*> argv = {const_cast<char*>(PTQ_BINARY)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(PTQ_BINARY, argv.data());
    ::_exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, ReadText(log)};
}

class OutOfMemory : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!kBufferPoolEnabled) GTEST_SKIP() << "AddressSanitizer reserves more address space than any limit allows";
    // ids [N, 4] -> Gather from an 8 GiB table (a sparse file: no disk blocks) -> MatMul W [1024, 8].
    const fs::path dir = tmp_.path();
    {
      std::ofstream table(dir / "table.bin", std::ios::binary);
    }
    fs::resize_file(dir / "table.bin", static_cast<uintmax_t>(kTableBytes + 4096));
    ModelBuilder b(13);
    b.Input("ids", DataType::kInt64, {-1, 4}).Output("y", DataType::kFloat, {-1, 4, 8});
    auto* t = b.model().mutable_graph()->add_initializer();
    t->set_name("table");
    t->set_data_type(onnx::TensorProto::FLOAT);
    t->add_dims(kTableRows);
    t->add_dims(1024);
    t->set_data_location(onnx::TensorProto::EXTERNAL);
    auto* loc = t->add_external_data();
    loc->set_key("location");
    loc->set_value("table.bin");
    std::vector<float> w(1024 * 8);
    for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i % 7) - 3.0f;
    b.Initializer("W", Tensor::FromVector<float>({1024, 8}, w));
    b.Node("Gather", {"table", "ids"}, {"rows"}, "embedding");
    b.Node("MatMul", {"rows", "W"}, {"y"}, "head");
    std::ofstream(dir / "model.onnx", std::ios::binary) << b.Serialize();
    fs::create_directories(dir / "calib");
    WriteNpy((dir / "calib" / "ids.npy").string(), Tensor::FromVector<int64_t>({2, 4}, {0, 1, 2, 3, 5, 8, 13, 21}));
    const nlohmann::json c = {{"model", (dir / "model.onnx").string()},
                              {"output", (dir / "out" / "model.int8.onnx").string()},
                              {"calibration", {{"data", (dir / "calib").string()}}}};
    std::ofstream(dir / "c.json") << c.dump(1);
  }

  std::string Config() const { return (tmp_.path() / "c.json").string(); }
  fs::path Log() const { return tmp_.path() / "log.txt"; }

  static void ExpectOutOfMemory(const testing::CommandResult& r, const std::string& stage, const std::string& what) {
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("ptq: error: "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("out of memory during " + stage + " ("), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(what), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(" GB resident, peak "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("of its limit of 2.15 GB"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("not valid ONNX"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("internal error"), std::string::npos) << r.output;
  }

  TempDir tmp_;
};

TEST_F(OutOfMemory, MappingExternalDataPastTheLimitFailsInTheStageThatMapsIt) {
  ExpectOutOfMemory(RunLimited({"quantize", "--config", Config()}, Log()), "calibration",
                    "mapping " + std::to_string(kTableBytes + 4096) + " bytes of ");
  EXPECT_FALSE(fs::exists(tmp_.path() / "out" / "model.int8.onnx"));
  // Unlimited, calibration maps the table and reads a few rows of it; the rewrite, limited, must map it
  // whole to write it into the int8 model.
  const auto table = RunPtq("calibrate --quiet --config " + Config() + " --out " + (tmp_.path() / "t.json").string());
  ASSERT_EQ(table.exit_code, 0) << table.output;
  ExpectOutOfMemory(RunLimited({"rewrite", "--config", Config(), "--table", (tmp_.path() / "t.json").string()}, Log()),
                    "rewrite", "table.bin");
  EXPECT_FALSE(fs::exists(tmp_.path() / "out" / "model.int8.onnx"));
}

TEST_F(OutOfMemory, AnAllocationPastTheLimitNamesTheNodeAndTheSize) {
  ModelBuilder b(13);
  b.Output("y", DataType::kFloat, {-1});
  b.Initializer("shape", Tensor::FromVector<int64_t>({1}, {int64_t{1} << 30}));  // 4 GiB of floats
  b.Node("ConstantOfShape", {"shape"}, {"y"}, "huge");
  std::ofstream(tmp_.path() / "huge.onnx", std::ios::binary) << b.Serialize();
  fs::create_directories(tmp_.path() / "in");
  const auto r = RunLimited({"run", (tmp_.path() / "huge.onnx").string(), "--inputs", (tmp_.path() / "in").string(),
                             "--outputs", (tmp_.path() / "y").string()},
                            Log());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("node 'huge' (ConstantOfShape): out of memory (allocating 4294967360 bytes for shape [1073741824])"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("of its limit of 2.15 GB"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace ptq
