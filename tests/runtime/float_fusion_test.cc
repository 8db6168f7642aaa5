// Float pattern fusion: LayerNorm and GELU written op by op become one node each (the exporters' forms
// and their commutations), with outputs within float rounding of the op-by-op evaluation; patterns whose
// intermediate tensors are read elsewhere, or whose constants differ, stay as written.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>

#include "runtime/graph.h"
#include "runtime/model_io.h"
#include "runtime/session.h"
#include "tests/runtime/model_builder.h"
#include "tests/runtime/qdq_test_models.h"

namespace ptq {
namespace {

using testing::ModelBuilder;

const std::string kDataDir = std::string(PTQ_SOURCE_DIR) + "/tests/data/";

onnx::AttributeProto Axes(std::initializer_list<int64_t> v) {
  onnx::AttributeProto a;
  a.set_name("axes");
  a.set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a.add_ints(x);
  return a;
}

Tensor Randn(std::mt19937& rng, Shape shape, float stddev = 1.0f) {
  Tensor t(DataType::kFloat, std::move(shape));
  std::normal_distribution<float> d(0.0f, stddev);
  for (int64_t i = 0; i < t.size(); ++i) t.data<float>()[i] = d(rng);
  return t;
}

// y = LayerNorm(x) over the last axis as torch writes it below opset 17; `square_by_mul` writes d * d
// instead of Pow(d, 2), `affine` adds the scale and bias, `axis` is ReduceMean's axis.
void LayerNorm(ModelBuilder& b, std::mt19937& rng, const std::string& x, const std::string& y, bool square_by_mul,
               bool affine, int64_t axis = -1) {
  b.Node("ReduceMean", {x}, {y + "/mean"}).add_attribute()->CopyFrom(Axes({axis}));
  b.Node("Sub", {x, y + "/mean"}, {y + "/d"});
  if (square_by_mul) {
    b.Node("Mul", {y + "/d", y + "/d"}, {y + "/sq"});
  } else {
    b.Initializer(y + "/two", Tensor::Scalar<float>(2.0f));
    b.Node("Pow", {y + "/d", y + "/two"}, {y + "/sq"});
  }
  b.Node("ReduceMean", {y + "/sq"}, {y + "/var"}).add_attribute()->CopyFrom(Axes({axis}));
  b.Initializer(y + "/eps", Tensor::Scalar<float>(1e-5f));
  b.Node("Add", {y + "/var", y + "/eps"}, {y + "/ve"});
  b.Node("Sqrt", {y + "/ve"}, {y + "/std"});
  if (!affine) {
    b.Node("Div", {y + "/d", y + "/std"}, {y});
    return;
  }
  b.Node("Div", {y + "/d", y + "/std"}, {y + "/n"});
  b.Initializer(y + "/gamma", Randn(rng, {16}));
  b.Initializer(y + "/beta", Randn(rng, {16}));
  b.Node("Mul", {y + "/gamma", y + "/n"}, {y + "/scaled"});  // the scale first: commuted
  b.Node("Add", {y + "/scaled", y + "/beta"}, {y});
}

// y = x * 0.5 * (1 + erf(x / sqrt(2))) in torch's order, or with x * 0.5 first (`half_first`).
void GeluErf(ModelBuilder& b, const std::string& x, const std::string& y, bool half_first, float sqrt2 = 1.4142135f) {
  b.Initializer(y + "/sqrt2", Tensor::Scalar<float>(sqrt2));
  b.Initializer(y + "/one", Tensor::Scalar<float>(1.0f));
  b.Initializer(y + "/half", Tensor::Scalar<float>(0.5f));
  b.Node("Div", {x, y + "/sqrt2"}, {y + "/d"});
  b.Node("Erf", {y + "/d"}, {y + "/e"});
  b.Node("Add", {y + "/e", y + "/one"}, {y + "/a"});
  if (half_first) {
    b.Node("Mul", {y + "/half", x}, {y + "/h"});
    b.Node("Mul", {y + "/h", y + "/a"}, {y});
  } else {
    b.Node("Mul", {x, y + "/a"}, {y + "/m"});
    b.Node("Mul", {y + "/m", y + "/half"}, {y});
  }
}

// The tanh form as torch exports F.gelu(approximate="tanh"): x^3 as x * (x * x), or Pow(x, 3).
void GeluTanh(ModelBuilder& b, const std::string& x, const std::string& y, bool pow) {
  b.Initializer(y + "/k", Tensor::Scalar<float>(0.044715f));
  b.Initializer(y + "/c", Tensor::Scalar<float>(0.7978846f));
  b.Initializer(y + "/one", Tensor::Scalar<float>(1.0f));
  b.Initializer(y + "/half", Tensor::Scalar<float>(0.5f));
  if (pow) {
    b.Initializer(y + "/three", Tensor::Scalar<float>(3.0f));
    b.Node("Pow", {x, y + "/three"}, {y + "/x3"});
  } else {
    b.Node("Mul", {x, x}, {y + "/x2"});
    b.Node("Mul", {x, y + "/x2"}, {y + "/x3"});
  }
  b.Node("Mul", {y + "/k", y + "/x3"}, {y + "/t"});
  b.Node("Add", {x, y + "/t"}, {y + "/u"});
  b.Node("Mul", {y + "/c", y + "/u"}, {y + "/v"});
  b.Node("Tanh", {y + "/v"}, {y + "/th"});
  b.Node("Add", {y + "/one", y + "/th"}, {y + "/a"});
  b.Node("Mul", {x, y + "/a"}, {y + "/m"});
  b.Node("Mul", {y + "/half", y + "/m"}, {y});
}

// Outputs of the fused and the op-by-op session agree within `tolerance` relative to each output's peak.
void ExpectClose(const std::shared_ptr<const Graph>& g, const std::map<std::string, Tensor>& feeds, double tolerance) {
  SessionOptions separate;
  separate.fuse_float_patterns = false;
  Session fused(g), plain(g, separate);
  const std::vector<Tensor> got = fused.Run(feeds), want = plain.Run(feeds);
  ASSERT_EQ(got.size(), want.size());
  for (size_t o = 0; o < want.size(); ++o) {
    ASSERT_EQ(got[o].shape(), want[o].shape()) << g->outputs[o].name;
    double peak = 0;
    for (int64_t i = 0; i < want[o].size(); ++i) peak = std::max(peak, std::abs(want[o].GetAsDouble(i)));
    for (int64_t i = 0; i < want[o].size(); ++i) {
      ASSERT_NEAR(got[o].GetAsDouble(i), want[o].GetAsDouble(i), tolerance * peak) << g->outputs[o].name << " " << i;
    }
  }
}

// float32 rounding of a few ops on values of order 1: the fused kernels compute in another order.
constexpr double kFusedTolerance = 2e-6;

TEST(FloatFusion, LayerNormsInEveryExportedFormBecomeOneNode) {
  std::mt19937 rng(1);
  ModelBuilder b(13);
  b.Input("x", DataType::kFloat, {3, 5, 16});
  LayerNorm(b, rng, "x", "ln_pow", false, true);
  LayerNorm(b, rng, "x", "ln_mul", true, true);
  LayerNorm(b, rng, "x", "ln_plain", false, false);
  b.Output("ln_pow", DataType::kFloat).Output("ln_mul", DataType::kFloat).Output("ln_plain", DataType::kFloat);
  const auto g = std::make_shared<const Graph>(GraphFromModel(b.model(), "", "ln.onnx"));
  Session s(g);
  EXPECT_EQ(s.fused_float().layer_norms, 3);
  EXPECT_EQ(s.graph().nodes.size(), 3u);
  ExpectClose(g, {{"x", Randn(rng, {3, 5, 16}, 3.0f)}}, kFusedTolerance);
}

TEST(FloatFusion, GelusInErfAndTanhFormsBecomeOneNode) {
  std::mt19937 rng(2);
  ModelBuilder b(13);
  b.Input("x", DataType::kFloat, {4, 33});
  GeluErf(b, "x", "g_torch", false);
  GeluErf(b, "x", "g_half_first", true);
  GeluTanh(b, "x", "g_tanh_mul", false);
  GeluTanh(b, "x", "g_tanh_pow", true);
  for (const char* o : {"g_torch", "g_half_first", "g_tanh_mul", "g_tanh_pow"}) b.Output(o, DataType::kFloat);
  const auto g = std::make_shared<const Graph>(GraphFromModel(b.model(), "", "gelu.onnx"));
  Session s(g);
  EXPECT_EQ(s.fused_float().gelus, 4);
  EXPECT_EQ(s.graph().nodes.size(), 4u);
  ExpectClose(g, {{"x", Randn(rng, {4, 33}, 2.0f)}}, kFusedTolerance);
}

TEST(FloatFusion, SiluBecomesOneNodeWithTheSameBits) {
  std::mt19937 rng(4);
  ModelBuilder b(13);
  b.Input("x", DataType::kFloat, {3, 50});
  b.Node("Sigmoid", {"x"}, {"s1"});
  b.Node("Mul", {"x", "s1"}, {"silu"});
  b.Node("Sigmoid", {"x"}, {"s2"});
  b.Node("Mul", {"s2", "x"}, {"silu_commuted"});
  b.Node("Sigmoid", {"x"}, {"s3"});  // also a graph output: stays
  b.Node("Mul", {"x", "s3"}, {"kept"});
  for (const char* o : {"silu", "silu_commuted", "kept", "s3"}) b.Output(o, DataType::kFloat);
  const auto g = std::make_shared<const Graph>(GraphFromModel(b.model(), "", "silu.onnx"));
  Session s(g);
  EXPECT_EQ(s.fused_float().silus, 2);
  ExpectClose(g, {{"x", Randn(rng, {3, 50}, 4.0f)}}, 0.0);
}

// A residual block: Conv -> Relu -> Conv -> Add(x) -> Relu; and a Conv -> Add of a constant (a bias:
// stays). With the residual added in the GEMM's store (channels last) or after the convolution (channels
// first), the bits of the separate nodes in the same layout.
TEST(FloatFusion, ResidualAddAndActivationJoinTheConvolution) {
  std::mt19937 rng(6);
  ModelBuilder b(13);
  b.Input("x", DataType::kFloat, {2, 8, 9, 11});
  b.Initializer("w1", Randn(rng, {8, 8, 3, 3}, 0.2f)).Initializer("w2", Randn(rng, {8, 8, 3, 3}, 0.2f));
  b.Initializer("b2", Randn(rng, {8}));
  onnx::AttributeProto pads;
  pads.set_name("pads");
  pads.set_type(onnx::AttributeProto::INTS);
  for (int i = 0; i < 4; ++i) pads.add_ints(1);
  b.Node("Conv", {"x", "w1"}, {"c1"}).add_attribute()->CopyFrom(pads);
  b.Node("Conv", {"r1", "w2", "b2"}, {"c2"}).add_attribute()->CopyFrom(pads);
  b.Node("Relu", {"c1"}, {"r1"});
  b.Node("Add", {"c2", "x"}, {"sum"});
  b.Node("Relu", {"sum"}, {"y"});
  b.Initializer("w3", Randn(rng, {8, 8, 1, 1})).Initializer("shift", Randn(rng, {8, 1, 1}));
  b.Node("Conv", {"x", "w3"}, {"c3"});
  b.Node("Add", {"c3", "shift"}, {"biased"});
  b.Output("y", DataType::kFloat).Output("biased", DataType::kFloat);
  const auto g = std::make_shared<const Graph>(GraphFromModel(b.model(), "", "residual.onnx"));
  const std::map<std::string, Tensor> feeds = {{"x", Randn(rng, {2, 8, 9, 11})}};
  for (bool channels_last : {true, false}) {
    SessionOptions fused, plain;
    fused.channels_last = plain.channels_last = channels_last;
    plain.fuse_float_patterns = false;
    Session f(g, fused), p(g, plain);
    EXPECT_EQ(f.fused_float().conv_sums, 1);
    EXPECT_EQ(f.fused_float().conv_activations, 1);
    const std::vector<Tensor> got = f.Run(feeds), want = p.Run(feeds);
    for (size_t o = 0; o < want.size(); ++o) {
      ASSERT_EQ(got[o].shape(), want[o].shape());
      EXPECT_EQ(0, std::memcmp(got[o].raw(), want[o].raw(), want[o].nbytes()))
          << g->outputs[o].name << (channels_last ? " channels last" : " channels first");
    }
  }
}

// EfficientNet's layers: Conv -> SiLU (Mul(c, Sigmoid(c))) for a strided 3x3 convolution, a depthwise one,
// a grouped one and pointwise ones, one over enough work for several row blocks; the SiLU joins each
// convolution with the bits of the separate nodes in the same layout. A SiLU whose input another node also
// reads stays a Silu node.
TEST(FloatFusion, SiluJoinsTheConvolutionWithTheSameBits) {
  std::mt19937 rng(7);
  ModelBuilder b(13);
  b.Input("x", DataType::kFloat, {1, 3, 40, 36});
  auto silu = [&b](const std::string& in, const std::string& out) {
    b.Node("Sigmoid", {in}, {out + "/sigmoid"});
    b.Node("Mul", {in, out + "/sigmoid"}, {out});
  };
  auto conv = [&](const std::string& in, const std::string& out, Shape w, int64_t group, int64_t stride) {
    b.Initializer(out + "/w", Randn(rng, w, 0.3f)).Initializer(out + "/b", Randn(rng, {w[0]}));
    auto& n = b.Node("Conv", {in, out + "/w", out + "/b"}, {out + "/conv"});
    n.add_attribute()->CopyFrom(qdq_test::IntsAttr("pads", {w[2] / 2, w[3] / 2, w[2] / 2, w[3] / 2}));
    n.add_attribute()->CopyFrom(qdq_test::IntsAttr("strides", {stride, stride}));
    n.add_attribute()->CopyFrom(qdq_test::IntAttr("group", group));
    silu(out + "/conv", out);
  };
  conv("x", "stem", {16, 3, 3, 3}, 1, 2);         // [1, 16, 20, 18]
  conv("stem", "dw", {16, 1, 3, 3}, 16, 1);       // depthwise
  conv("dw", "grouped", {32, 8, 3, 3}, 2, 1);     // two groups
  conv("grouped", "expand", {200, 32, 1, 1}, 1, 1);  // pointwise, 360 positions x 200 channels
  conv("grouped", "wide", {400, 32, 1, 1}, 1, 1);    // pointwise, 4.6 M multiply-adds: 3 row blocks, threads
  b.Node("Relu", {"expand/conv"}, {"other_reader"});
  b.Output("expand", DataType::kFloat).Output("dw", DataType::kFloat).Output("other_reader", DataType::kFloat);
  b.Output("wide", DataType::kFloat);
  const auto g = std::make_shared<const Graph>(GraphFromModel(b.model(), "", "silu_conv.onnx"));
  const std::map<std::string, Tensor> feeds = {{"x", Randn(rng, {1, 3, 40, 36}, 2.0f)}};
  const int saved = omp_get_max_threads();
  for (int threads : {1, 3}) {  // the fused pointwise layer shares its row blocks between threads
    omp_set_num_threads(threads);
    for (bool channels_last : {true, false}) {
      SessionOptions fused, plain;
      fused.channels_last = plain.channels_last = channels_last;
      plain.fuse_float_patterns = false;
      Session f(g, fused), p(g, plain);
      EXPECT_EQ(f.fused_float().conv_activations, 4);  // stem, dw, grouped, wide
      EXPECT_EQ(f.fused_float().silus, 1);             // expand: its convolution output is also read by the Relu
      const std::vector<Tensor> got = f.Run(feeds), want = p.Run(feeds);
      for (size_t o = 0; o < want.size(); ++o) {
        ASSERT_EQ(got[o].shape(), want[o].shape());
        EXPECT_EQ(0, std::memcmp(got[o].raw(), want[o].raw(), want[o].nbytes()))
            << g->outputs[o].name << (channels_last ? " channels last" : " channels first") << ", threads "
            << threads;
      }
    }
  }
  omp_set_num_threads(saved);
}

TEST(FloatFusion, PatternsWithOutsideReadersOrOtherConstantsStayAsWritten) {
  std::mt19937 rng(3);
  ModelBuilder b(13);
  b.Input("x", DataType::kFloat, {2, 16});
  LayerNorm(b, rng, "x", "ln_read", false, true);   // its variance is also a graph output
  LayerNorm(b, rng, "x", "ln_axis0", false, true, 0);  // not the last axis
  GeluErf(b, "x", "g_other", false, 1.5f);           // not sqrt(2)
  GeluErf(b, "x", "g_read", false);                  // its erf is also read by a Neg
  b.Node("Neg", {"g_read/e"}, {"neg"});
  for (const char* o : {"ln_read", "ln_read/var", "ln_axis0", "g_other", "g_read", "neg"}) b.Output(o, DataType::kFloat);
  Session s(std::make_shared<const Graph>(GraphFromModel(b.model(), "", "kept.onnx")));
  EXPECT_EQ(s.fused_float().total(), 0);
}

TEST(FloatFusion, TorchExportsOfTheFixturesFuseEveryLayerNormAndGelu) {
  // The BERT-shaped encoder (opset 14): embedding LN + 2 layers x 2 LNs, exact GELU in each FFN.
  Session bert(std::make_shared<const Graph>(LoadGraph(kDataDir + "bert_encoder/bert_encoder.onnx")));
  EXPECT_EQ(bert.fused_float().layer_norms, 5);
  EXPECT_EQ(bert.fused_float().gelus, 2);
  for (const Node& n : bert.graph().nodes) {
    EXPECT_NE(n.op_type, "ReduceMean") << n.name;
    EXPECT_NE(n.op_type, "Erf") << n.name;
  }
}

}  // namespace
}  // namespace ptq
