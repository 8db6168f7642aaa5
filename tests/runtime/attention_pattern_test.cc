// Tests of the attention matcher on the fixtures and on hand-built exporter variants.
#include "runtime/attention_pattern.h"

#include <gtest/gtest.h>

#include "tests/runtime/model_builder.h"

namespace ptq {
namespace {

using testing::ModelBuilder;

std::string Data(const std::string& rel) { return std::string(PTQ_SOURCE_DIR) + "/tests/data/" + rel; }

TEST(FindAttention, FindsEveryBlockOfTheFixtures) {
  // digits ViT: 2 encoder blocks; BERT-shaped encoder: 2 layers.
  for (const char* model : {"digits_vit/digits_vit_opset13.onnx", "digits_vit/digits_vit_opset17.onnx",
                            "bert_encoder/bert_encoder.onnx"}) {
    const Graph g = LoadGraph(Data(model));
    const auto matches = FindAttention(g);
    ASSERT_EQ(matches.size(), 2u) << model;
    for (const AttentionMatch& m : matches) {
      EXPECT_NE(m.pv_matmul, nullptr) << model;
      EXPECT_NE(m.qk_matmul, nullptr) << model << ": no Q·Kᵀ MatMul found before " << m.softmax->name;
    }
  }
  EXPECT_TRUE(FindAttention(LoadGraph(Data("digits_cnn/digits_cnn.onnx"))).empty());
}

// q, k, v: [B, H, S, D]. Builds scores -> (scale op) -> (mask op) -> Softmax -> (shape ops) -> P·V.
ModelBuilder Attention(const std::string& scale_op, const std::string& mask_op, bool transpose_after_softmax) {
  ModelBuilder b(13);
  for (const char* n : {"q", "k", "v"}) b.Input(n, DataType::kFloat, {1, 2, 4, 8});
  b.Input("mask", DataType::kFloat, {1, 1, 4, 4});
  b.Output("out", DataType::kFloat);
  b.Initializer("scale", Tensor::Scalar<float>(scale_op == "Div" ? 2.828f : 0.3535f));
  b.Node("Transpose", {"k"}, {"kt"}, "k_t");
  b.Node("MatMul", {"q", "kt"}, {"scores"}, "qk");
  b.Node(scale_op, {"scores", "scale"}, {"scaled"}, "scale");
  if (mask_op == "Add") {
    b.Node("Add", {"scaled", "mask"}, {"masked"}, "mask_add");
  } else {
    b.Initializer("neg", Tensor::Scalar<float>(-1e9f));
    b.Node("Cast", {"mask"}, {"mask_b"}, "mask_cast");
    b.Node("Where", {"mask_b", "neg", "scaled"}, {"masked"}, "mask_where");
  }
  b.Node("Softmax", {"masked"}, {"probs"}, "softmax");
  std::string p = "probs";
  if (transpose_after_softmax) {
    b.Node("Reshape", {"probs", "shape"}, {"probs_r"}, "reshape");
    b.Initializer("shape", Tensor::FromVector<int64_t>({4}, {1, 2, 4, 4}));
    p = "probs_r";
  }
  b.Node("MatMul", {p, "v"}, {"out"}, "pv");
  return b;
}

TEST(FindAttention, IndependentOfExporterStyle) {
  for (const char* scale : {"Div", "Mul"}) {
    for (const char* mask : {"Add", "Where"}) {
      for (bool reshape : {false, true}) {
        ModelBuilder b = Attention(scale, mask, reshape);
        const Graph g = GraphFromModel(b.model(), "", "attention.onnx");
        const auto m = FindAttention(g);
        ASSERT_EQ(m.size(), 1u) << scale << " " << mask << " " << reshape;
        EXPECT_EQ(m[0].softmax->name, "softmax");
        ASSERT_NE(m[0].pv_matmul, nullptr);
        EXPECT_EQ(m[0].pv_matmul->name, "pv");
        ASSERT_NE(m[0].qk_matmul, nullptr) << scale << " " << mask;
        EXPECT_EQ(m[0].qk_matmul->name, "qk");
      }
    }
  }
}

TEST(FindAttention, SoftmaxFeedingAConstantMatMulIsNotAttention) {
  ModelBuilder b(13);
  b.Input("x", DataType::kFloat, {1, 4});
  b.Output("y", DataType::kFloat);
  b.Initializer("w", Tensor::FromVector<float>({4, 2}, {1, 2, 3, 4, 5, 6, 7, 8}));
  b.Node("Softmax", {"x"}, {"p"}, "softmax");
  b.Node("MatMul", {"p", "w"}, {"y"}, "classifier");
  EXPECT_TRUE(FindAttention(GraphFromModel(b.model(), "", "m.onnx")).empty());
}

}  // namespace
}  // namespace ptq
