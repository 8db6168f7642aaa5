// Tests of `ptq run`: the ONNX quantization node tests through the command line, bit-exact, and its
// errors on bad models and inputs.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "runtime/graph.h"
#include "runtime/npy.h"
#include "runtime/session.h"
#include "runtime/tensor_proto.h"
#include "tests/cli/cli_test_util.h"
#include "tests/conformance/tensor_compare.h"

namespace ptq {
namespace {

namespace fs = std::filesystem;
using testing::RunPtq;
using testing::CommandResult;
using testing::TempDir;

const char* kNodeData = "/usr/share/libonnx-testdata/data/node";

class QuantNodeTestThroughCli : public ::testing::TestWithParam<const char*> {};

// Each test's outputs must equal the reference exactly: they are integers, or floats computed from
// integers by one multiplication (DequantizeLinear), which must also be bit-identical.
TEST_P(QuantNodeTestThroughCli, MatchesReferenceBitExactly) {
  const fs::path dir = fs::path(kNodeData) / GetParam();
  ASSERT_TRUE(fs::exists(dir)) << dir << " missing: install libonnx-testdata";
  TempDir out;
  const fs::path set = dir / "test_data_set_0";
  const CommandResult r = RunPtq("run " + (dir / "model.onnx").string() + " --inputs " + set.string() + " --outputs " +
                                 out.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  int checked = 0;
  for (int i = 0; fs::exists(set / ("output_" + std::to_string(i) + ".pb")); ++i) {
    std::string name;
    const Tensor expected = ReadTensorProtoFile((set / ("output_" + std::to_string(i) + ".pb")).string(), &name);
    const fs::path got = out.path() / (name + ".npy");
    ASSERT_TRUE(fs::exists(got)) << "no output file " << got << "; ptq said: " << r.output;
    EXPECT_EQ(CompareTensors(ReadNpy(got.string()), expected, 0.0, 0.0), "") << name;
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

INSTANTIATE_TEST_SUITE_P(OnnxQuantizationNodeTests, QuantNodeTestThroughCli,
                         ::testing::Values("test_qlinearmatmul_2D", "test_qlinearmatmul_3D", "test_quantizelinear",
                                           "test_quantizelinear_axis", "test_dequantizelinear",
                                           "test_dequantizelinear_axis", "test_matmulinteger", "test_qlinearconv",
                                           "test_basic_convinteger", "test_convinteger_with_padding",
                                           "test_convinteger_without_padding", "test_dynamicquantizelinear",
                                           "test_dynamicquantizelinear_max_adjusted",
                                           "test_dynamicquantizelinear_min_adjusted"));

TEST(RunCommand, TruncatedModelFailsWithExitCode2NamingTheFile) {
  TempDir tmp;
  const std::string src = std::string(kNodeData) + "/test_qlinearconv/model.onnx";
  std::ifstream in(src, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(bytes.size(), 40u);
  const fs::path bad = tmp.path() / "truncated.onnx";
  std::ofstream(bad, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  const CommandResult r = RunPtq("run " + bad.string() + " --inputs " + tmp.path().string() + " --outputs " +
                                 (tmp.path() / "out").string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("truncated.onnx"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(tmp.path() / "out"));
}

TEST(RunCommand, GarbageModelFailsWithExitCode2) {
  TempDir tmp;
  const fs::path bad = tmp.path() / "garbage.onnx";
  std::ofstream(bad, std::ios::binary) << std::string(1000, '\xff');
  const CommandResult r = RunPtq("run " + bad.string() + " --inputs " + tmp.path().string() + " --outputs " +
                                 (tmp.path() / "out").string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("garbage.onnx"), std::string::npos) << r.output;
}

TEST(RunCommand, MissingInputFileNamesTheInput) {
  TempDir tmp;
  const std::string model = std::string(kNodeData) + "/test_qlinearmatmul_2D/model.onnx";
  const CommandResult r = RunPtq("run " + model + " --inputs " + tmp.path().string() + " --outputs " +
                                 (tmp.path() / "out").string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("input 'a'"), std::string::npos) << r.output;
}

TEST(RunCommand, UnknownOptionIsUsageError) {
  const CommandResult r = RunPtq("run x.onnx --bogus 1");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("--bogus"), std::string::npos) << r.output;
}

TEST(RunCommand, HelpAndVersion) {
  CommandResult r = RunPtq("--help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.output.find("run"), std::string::npos);
  r = RunPtq("run --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.output.find("--inputs"), std::string::npos);
  r = RunPtq("--version");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.output.rfind("ptq ", 0), 0u) << r.output;
}

// A QDQ model run fused (the default) and with --literal-qdq: each equals the in-process session of the
// same kind bit for bit, the fused one fuses the digits CNN's convolutions, and the two differ.
TEST(RunCommand, LiteralQdqRunsTheNodesAsWritten) {
  const fs::path data = fs::path(PTQ_SOURCE_DIR) / "tests" / "data" / "digits_cnn";
  TempDir tmp;
  {
    std::ofstream cfg(tmp.path() / "cfg.json");
    cfg << R"({"model": ")" << (data / "digits_cnn.onnx").string() << R"(", "output": ")"
        << (tmp.path() / "q.onnx").string() << R"(", "calibration": {"data": ")" << (data / "calib").string()
        << R"("}, "quantization": {"format": "qdq"}})";
  }
  CommandResult r = RunPtq("quantize --quiet --config " + (tmp.path() / "cfg.json").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string model = (tmp.path() / "q.onnx").string();
  for (bool literal : {false, true}) {
    const fs::path out = tmp.path() / (literal ? "literal" : "fused");
    r = RunPtq("run " + model + " --inputs " + (data / "eval").string() + " --outputs " + out.string() +
               (literal ? " --literal-qdq" : ""));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    auto graph = std::make_shared<const Graph>(LoadGraph(model));
    SessionOptions options;
    options.literal_qdq = literal;
    Session session(graph, options);
    EXPECT_EQ(session.fused().total() > 0, !literal);
    const auto want = session.Run({{graph->inputs[0].name, ReadNpy((data / "eval" / "images.npy").string())}});
    const Tensor got = ReadNpy((out / (graph->outputs[0].name + ".npy")).string());
    EXPECT_EQ(CompareTensors(got, want[0], 0.0, 0.0), "") << (literal ? "literal" : "fused");
  }
  EXPECT_NE(CompareTensors(ReadNpy((tmp.path() / "fused" / "logits.npy").string()),
                           ReadNpy((tmp.path() / "literal" / "logits.npy").string()), 0.0, 0.0),
            "")
      << "fused and literal evaluation gave the same bits: the option changed nothing";
}

}  // namespace
}  // namespace ptq
