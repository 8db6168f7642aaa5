// Tests of CompareModels and SharedInputs in-process (the Python module's path: batches from memory):
// the figures against ones computed here, outputs matched by name, and the errors for models that do
// not fit together.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "report/compare_models.h"
#include "runtime/quant_math.h"
#include "tests/error_of.h"
#include "tests/runtime/model_builder.h"

namespace ptq {
namespace {

using testing::ErrorOf;
using testing::ModelBuilder;

constexpr float kXScale = 0.02f, kWScale = 0.05f;
constexpr int32_t kXZero = 128;

// Weights that are exact multiples of kWScale (their int8 form loses nothing).
std::vector<float> Weights() {
  std::vector<float> w;
  for (int i = 0; i < 12; ++i) w.push_back(kWScale * static_cast<float>((i * 7) % 11 - 5));
  return w;
}

// x [N, 4] -> MatMul(W [4, 3]) -> y.
Graph FloatModel() {
  ModelBuilder m;
  m.Input("x", DataType::kFloat, {-1, 4}).Output("y", DataType::kFloat, {-1, 3});
  m.Initializer("W", Tensor::FromVector<float>({4, 3}, Weights()));
  m.Node("MatMul", {"x", "W"}, {"y"}, "mm");
  return GraphFromModel(m.model(), ".", "float.onnx");
}

// The same in ONNX Runtime's QDQ form and names.
Graph QdqModel() {
  ModelBuilder m;
  m.Input("x", DataType::kFloat, {-1, 4}).Output("y", DataType::kFloat, {-1, 3});
  std::vector<int8_t> wq;
  for (float w : Weights()) wq.push_back(static_cast<int8_t>(std::lround(w / kWScale)));
  m.Initializer("W_quantized", Tensor::FromVector<int8_t>({4, 3}, wq));
  m.Initializer("W_scale", Tensor::Scalar<float>(kWScale)).Initializer("W_zero_point", Tensor::Scalar<int8_t>(0));
  m.Initializer("x_scale", Tensor::Scalar<float>(kXScale));
  m.Initializer("x_zero_point", Tensor::Scalar<uint8_t>(static_cast<uint8_t>(kXZero)));
  m.Node("QuantizeLinear", {"x", "x_scale", "x_zero_point"}, {"x_QuantizeLinear_Output"});
  m.Node("DequantizeLinear", {"x_QuantizeLinear_Output", "x_scale", "x_zero_point"}, {"x_DequantizeLinear_Output"});
  m.Node("DequantizeLinear", {"W_quantized", "W_scale", "W_zero_point"}, {"W_DequantizeLinear_Output"});
  m.Node("MatMul", {"x_DequantizeLinear_Output", "W_DequantizeLinear_Output"}, {"y"}, "mm");
  return GraphFromModel(m.model(), ".", "int8.onnx");
}

// Two batches of 3 samples, values spread over [-3, 3] (beyond the int8 range of x: some clip).
std::vector<Tensor> Batches() {
  std::vector<Tensor> out;
  for (int b = 0; b < 2; ++b) {
    std::vector<float> v;
    for (int i = 0; i < 12; ++i) v.push_back(std::sin(0.7f * static_cast<float>(i + 12 * b)) * 3.0f);
    out.push_back(Tensor::FromVector<float>({3, 4}, v));
  }
  return out;
}

BatchSourceFactory FromMemory(std::vector<Tensor> batches, std::string input = "x") {
  return [batches, input]() -> BatchSource {
    auto next = std::make_shared<size_t>(0);
    return [batches, input, next](std::map<std::string, Tensor>* batch, int64_t* n) {
      if (*next >= batches.size()) return false;
      const Tensor& t = batches[(*next)++];
      *batch = {{input, t}};
      *n = t.dim(0);
      return true;
    };
  };
}

double SqnrDb(const std::vector<double>& ref, const std::vector<double>& got) {
  double s = 0, e = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    s += ref[i] * ref[i];
    e += (ref[i] - got[i]) * (ref[i] - got[i]);
  }
  return 10 * std::log10(s / e);
}

// The output and the layer x against figures computed here from the quantization formula: x's error is
// its own rounding and clipping; y's is x's carried through the exact weights.
TEST(CompareModels, QdqModelFiguresMatchOnesComputedByHand) {
  CompareOptions options;
  options.provenance = {{"model", "float.onnx"}, {"quantized_model", "int8.onnx"}};
  options.model = {{"float_bytes", 100}};
  const nlohmann::json r = CompareModels(FloatModel(), QdqModel(), FromMemory(Batches()), nullptr, options);
  std::vector<double> x, xq, y, yq;
  const std::vector<float> w = Weights();
  for (const Tensor& b : Batches()) {
    for (int64_t s = 0; s < 3; ++s) {
      double row[4], rowq[4];
      for (int k = 0; k < 4; ++k) {
        row[k] = b.data<float>()[s * 4 + k];
        rowq[k] = DequantizeValue(QuantizeValue(static_cast<float>(row[k]), kXScale, kXZero, 0, 255), kXScale, kXZero);
        x.push_back(row[k]);
        xq.push_back(rowq[k]);
      }
      for (int n = 0; n < 3; ++n) {
        double a = 0, aq = 0;
        for (int k = 0; k < 4; ++k) {
          a += row[k] * w[k * 3 + n];
          aq += rowq[k] * w[k * 3 + n];
        }
        y.push_back(a);
        yq.push_back(aq);
      }
    }
  }
  ASSERT_EQ(r["outputs"].size(), 1u);
  EXPECT_EQ(r["outputs"][0]["name"], "y");
  EXPECT_NEAR(r["outputs"][0]["sqnr_db"].get<double>(), SqnrDb(y, yq), 1e-3);
  ASSERT_EQ(r["layers"].size(), 1u);
  const auto& l = r["layers"][0];
  EXPECT_EQ(l["tensor"], "x");
  EXPECT_EQ(l["int8_tensor"], "x_QuantizeLinear_Output");
  EXPECT_NEAR(l["sqnr_db"].get<double>(), SqnrDb(x, xq), 1e-3);
  EXPECT_FLOAT_EQ(l["scale"].get<float>(), kXScale);
  EXPECT_EQ(l["zero_point"], kXZero);
  int clipped = 0;
  for (double v : x) clipped += v < (0 - kXZero) * kXScale || v > (255 - kXZero) * kXScale;
  EXPECT_GT(clipped, 0);
  EXPECT_NEAR(l["clipped_fraction"].get<double>(), clipped / 24.0, 1e-12);
  EXPECT_EQ(r["provenance"]["validation_samples"], 6);
  EXPECT_EQ(r["provenance"]["matched_layers"], 1);
  EXPECT_EQ(r["provenance"]["quantized_model"], "int8.onnx");
  EXPECT_EQ(r["model"]["float_bytes"], 100);
  EXPECT_EQ(r["model"]["op_counts"]["QuantizeLinear"], 1);
  EXPECT_TRUE(r["warnings"].empty()) << r["warnings"];
  EXPECT_FALSE(r.contains("gate"));
}

// A model against itself: no error at all, no layer, and a warning that nothing is quantized.
TEST(CompareModels, AModelAgainstItselfIsExact) {
  const nlohmann::json r = CompareModels(FloatModel(), FloatModel(), FromMemory(Batches()), nullptr);
  const auto& o = r["outputs"][0];
  EXPECT_EQ(o["sqnr_db"], "inf");
  EXPECT_EQ(o["max_abs_error"], 0.0);
  EXPECT_EQ(o["cosine"], 1.0);
  EXPECT_TRUE(r["layers"].empty());
  ASSERT_EQ(r["warnings"].size(), 1u);
  EXPECT_NE(r["warnings"][0].get<std::string>().find("no quantized op"), std::string::npos);
}

// Two outputs, listed in the other order by the second model: matched by name, reported in the float
// model's order (compared by position they would differ in shape).
TEST(CompareModels, OutputsAreMatchedByName) {
  auto model = [](bool reversed, const std::string& second) {
    ModelBuilder m;
    m.Input("x", DataType::kFloat, {-1, 4});
    m.Initializer("W", Tensor::FromVector<float>({4, 3}, Weights()));
    m.Node("MatMul", {"x", "W"}, {"y"}, "mm");
    m.Node("Add", {"x", "x"}, {second}, "twice");
    if (reversed) m.Output(second, DataType::kFloat, {-1, 4}).Output("y", DataType::kFloat, {-1, 3});
    else m.Output("y", DataType::kFloat, {-1, 3}).Output(second, DataType::kFloat, {-1, 4});
    return GraphFromModel(m.model(), ".", reversed ? "b.onnx" : "a.onnx");
  };
  const nlohmann::json r = CompareModels(model(false, "d"), model(true, "d"), FromMemory(Batches()), nullptr);
  ASSERT_EQ(r["outputs"].size(), 2u);
  EXPECT_EQ(r["outputs"][0]["name"], "y");
  EXPECT_EQ(r["outputs"][1]["name"], "d");
  for (const auto& o : r["outputs"]) {
    EXPECT_TRUE(o["compared"].get<bool>()) << o;
    EXPECT_EQ(o["sqnr_db"], "inf") << o;
  }
  const std::string e = ErrorOf([&] { CompareModels(model(false, "d"), model(true, "e"), FromMemory(Batches()), nullptr); });
  EXPECT_NE(e.find("different outputs"), std::string::npos) << e;
  EXPECT_NE(e.find("'e'"), std::string::npos) << e;
}

TEST(CompareModels, FewerLabelsThanSamplesIsAnInputErrorNamingTheLabels) {
  CompareOptions options;
  options.labels_name = "labels.npy";
  const Tensor labels = Tensor::FromVector<int64_t>({2}, {0, 1});
  const std::string e = ErrorOf([&] { CompareModels(FloatModel(), QdqModel(), FromMemory(Batches()), &labels, options); });
  EXPECT_NE(e.find("labels.npy: 2 labels for 6 samples"), std::string::npos) << e;
}

Graph OneInput(const std::string& name, DataType t, const std::vector<int64_t>& dims, const std::string& source) {
  ModelBuilder m;
  m.Input(name, t, dims).Output("y", t, dims);
  m.Node("Identity", {name}, {"y"});
  return GraphFromModel(m.model(), ".", source);
}

// The shared inputs fix every dim either model fixes; inputs that differ are an input error naming the
// input and both models.
TEST(SharedInputs, MergesFixedDimsAndRefusesInputsThatDiffer) {
  const Graph shared = SharedInputs(OneInput("x", DataType::kFloat, {-1, 4}, "f.onnx"),
                                    OneInput("x", DataType::kFloat, {2, -1}, "q.onnx"));
  ASSERT_EQ(shared.inputs.size(), 1u);
  EXPECT_EQ(shared.inputs[0].shape[0].value, 2);
  EXPECT_EQ(shared.inputs[0].shape[1].value, 4);
  EXPECT_EQ(shared.source, "f.onnx");
  const Graph f = OneInput("x", DataType::kFloat, {-1, 4}, "f.onnx");
  for (const Graph& q : {OneInput("x", DataType::kUint8, {-1, 4}, "q.onnx"), OneInput("x", DataType::kFloat, {-1, 4, 1}, "q.onnx"),
                         OneInput("x", DataType::kFloat, {-1, 5}, "q.onnx"), OneInput("x2", DataType::kFloat, {-1, 4}, "q.onnx")}) {
    const std::string e = ErrorOf([&] { SharedInputs(f, q); });
    EXPECT_NE(e.find("different inputs"), std::string::npos) << e;
    EXPECT_NE(e.find("f.onnx"), std::string::npos) << e;
    EXPECT_NE(e.find("q.onnx"), std::string::npos) << e;
    EXPECT_NE(e.find("'x"), std::string::npos) << e;
  }
}

}  // namespace
}  // namespace ptq
