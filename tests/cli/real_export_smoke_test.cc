// Smoke tests of exporter styles the model zoo meets at full size (issue 15), as tiny models built
// here: an opset-11 Softmax on a tensor that no quantized op touches and whose rank static inference
// cannot find (the PP-OCRv4 recogniser's case), a weight shared by two layers through Identity
// nodes (torch's tied and deduplicated parameters), and an in-place write (ScatterND).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include <nlohmann/json.hpp>

#include "runtime/model_io.h"
#include "runtime/npy.h"
#include "tests/cli/cli_test_util.h"
#include "tests/runtime/model_builder.h"

namespace ptq {
namespace {

namespace fs = std::filesystem;
using testing::ModelBuilder;
using testing::RunPtq;
using testing::TempDir;

Tensor Uniform(const Shape& shape, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  Tensor t(DataType::kFloat, shape);
  for (int64_t i = 0; i < t.size(); ++i) t.data<float>()[i] = u(rng);
  return t;
}

// x [N, 1, 8] -> MatMul -> Squeeze (no axes: opset 11 squeezes every dimension of size 1, so with a
// symbolic N the output rank is unknown to static inference) -> Softmax. Converting to opset 13 needs
// the Softmax input's rank; calibration observed it although no quantized op reads that tensor.
TEST(RealExportSmoke, OpsetElevenSoftmaxOnATensorNoQuantizedOpTouches) {
  TempDir tmp;
  ModelBuilder b(11);
  b.Input("x", DataType::kFloat, {-1, 1, 8}).Output("p", DataType::kFloat, {-1, 8});
  b.Initializer("W", Uniform({8, 8}, 1));
  b.Node("MatMul", {"x", "W"}, {"h"}, "mm");
  b.Node("Squeeze", {"h"}, {"s"}, "squeeze");
  b.Node("Softmax", {"s"}, {"p"}, "softmax");
  std::ofstream(tmp.path() / "model.onnx", std::ios::binary) << b.Serialize();
  fs::create_directories(tmp.path() / "calib");
  WriteNpy((tmp.path() / "calib" / "x.npy").string(), Uniform({16, 1, 8}, 2));
  for (const char* format : {"qoperator", "qdq"}) {
    const nlohmann::json c = {{"model", (tmp.path() / "model.onnx").string()},
                              {"output", (tmp.path() / (std::string(format) + ".onnx")).string()},
                              {"calibration", {{"data", (tmp.path() / "calib").string()}, {"batch_size", 8}}},
                              {"quantization", {{"format", format}}},
                              {"validation", {{"gate", {{"min_sqnr_db", 25.0}}}}}};
    std::ofstream(tmp.path() / "c.json") << c.dump();
    const auto r = RunPtq("quantize --config " + (tmp.path() / "c.json").string() + " --quiet");
    EXPECT_EQ(r.exit_code, 0) << format << ": " << r.output;
  }
}

// Two layers read one 64x64 weight, each through its own Identity. Both become integer MatMuls reading
// one int8 copy of it, and the int8 model is smaller than the float one.
TEST(RealExportSmoke, AWeightSharedThroughIdentityIsQuantizedOnce) {
  TempDir tmp;
  ModelBuilder b(13);
  b.Input("x", DataType::kFloat, {-1, 64}).Output("y", DataType::kFloat, {-1, 64});
  b.Initializer("W", Uniform({64, 64}, 3));
  b.Node("Identity", {"W"}, {"layer0.W"}, "tie0");
  b.Node("Identity", {"W"}, {"layer1.W"}, "tie1");
  b.Node("MatMul", {"x", "layer0.W"}, {"h"}, "layer0");
  b.Node("Relu", {"h"}, {"r"}, "relu");
  b.Node("MatMul", {"r", "layer1.W"}, {"y"}, "layer1");
  std::ofstream(tmp.path() / "model.onnx", std::ios::binary) << b.Serialize();
  fs::create_directories(tmp.path() / "calib");
  WriteNpy((tmp.path() / "calib" / "x.npy").string(), Uniform({16, 64}, 4));
  for (const char* format : {"qoperator", "qdq"}) {
    const fs::path out = tmp.path() / (std::string(format) + ".onnx");
    const nlohmann::json c = {{"model", (tmp.path() / "model.onnx").string()},
                              {"output", out.string()},
                              {"calibration", {{"data", (tmp.path() / "calib").string()}, {"batch_size", 8}}},
                              {"quantization", {{"format", format}}}};
    std::ofstream(tmp.path() / "c.json") << c.dump();
    const auto r = RunPtq("quantize --config " + (tmp.path() / "c.json").string());
    ASSERT_EQ(r.exit_code, 0) << format << ": " << r.output;
    EXPECT_EQ(r.output.find("stays float"), std::string::npos) << r.output;
    onnx::ModelProto q;
    LoadModelProto(out.string(), &q);
    int int8_weights = 0, float_matmuls = 0;
    for (const auto& t : q.graph().initializer()) int8_weights += t.data_type() == onnx::TensorProto::INT8 && t.dims_size() == 2;
    for (const auto& n : q.graph().node()) float_matmuls += n.op_type() == "MatMul" && n.input(1).find("dequantized") == std::string::npos;
    EXPECT_EQ(int8_weights, 1) << format;
    EXPECT_EQ(float_matmuls, 0) << format;
    EXPECT_LT(fs::file_size(out), fs::file_size(tmp.path() / "model.onnx") / 2) << format;
  }
}

// An in-place write, torch's `h[:, 0] = 0` after a MatMul: ScatterND(hT, [[0]], zeros) on the transposed
// tensor zeroes column 0 of h (and again of the second MatMul's output). The landed code refused the
// model ("unsupported ops: ScatterND"). Both formats quantize it, and the int8 model keeps the write:
// column 0 of y is exactly 0.
TEST(RealExportSmoke, AnInPlaceWriteThroughScatterNDQuantizes) {
  TempDir tmp;
  ModelBuilder b(13);
  // Batches of 4 (the exported updates have the batch size baked in, as torch exports them).
  b.Input("x", DataType::kFloat, {-1, 8}).Output("y", DataType::kFloat, {-1, 8});
  b.Initializer("W", Uniform({8, 8}, 5));
  b.Initializer("W2", Uniform({8, 8}, 6));
  b.Initializer("idx", Tensor::FromVector<int64_t>({1, 1}, {0}));
  b.Initializer("zeros", Tensor::FromVector<float>({1, 4}, {0, 0, 0, 0}));
  b.Node("MatMul", {"x", "W"}, {"h"}, "mm");
  b.Node("Transpose", {"h"}, {"hT"}, "t1");
  b.Node("ScatterND", {"hT", "idx", "zeros"}, {"sT"}, "inplace");
  b.Node("Transpose", {"sT"}, {"s"}, "t2");
  b.Node("MatMul", {"s", "W2"}, {"y0"}, "mm2");
  b.Node("Transpose", {"y0"}, {"y0T"}, "t3");
  b.Node("ScatterND", {"y0T", "idx", "zeros"}, {"yT"}, "inplace2");
  b.Node("Transpose", {"yT"}, {"y"}, "t4");
  std::ofstream(tmp.path() / "model.onnx", std::ios::binary) << b.Serialize();
  fs::create_directories(tmp.path() / "calib");
  WriteNpy((tmp.path() / "calib" / "x.npy").string(), Uniform({16, 8}, 7));
  for (const char* format : {"qoperator", "qdq"}) {
    const fs::path out = tmp.path() / (std::string(format) + ".onnx");
    const nlohmann::json c = {{"model", (tmp.path() / "model.onnx").string()},
                              {"output", out.string()},
                              {"calibration", {{"data", (tmp.path() / "calib").string()}, {"batch_size", 4}}},
                              {"quantization", {{"format", format}}},
                              {"validation", {{"gate", {{"min_sqnr_db", 25.0}}}}}};
    std::ofstream(tmp.path() / "c.json") << c.dump();
    const auto r = RunPtq("quantize --config " + (tmp.path() / "c.json").string() + " --quiet");
    ASSERT_EQ(r.exit_code, 0) << format << ": " << r.output;
    fs::create_directories(tmp.path() / "one");
    WriteNpy((tmp.path() / "one" / "x.npy").string(), Uniform({4, 8}, 8));
    const auto run = RunPtq("run " + out.string() + " --inputs " + (tmp.path() / "one").string() + " --outputs " +
                            (tmp.path() / "out").string());
    ASSERT_EQ(run.exit_code, 0) << run.output;
    const Tensor y = ReadNpy((tmp.path() / "out" / "y.npy").string());
    for (int i = 0; i < 4; ++i) EXPECT_EQ(y.data<float>()[i * 8], 0.0f) << format << " row " << i;
  }
}

}  // namespace
}  // namespace ptq
