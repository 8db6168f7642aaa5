// Tests of RNN, GRU and LSTM beyond the ONNX node tests: bidirectional runs with sequence lengths
// shorter than the input (checked against the formulas step by step), layout 1 against layout 0,
// clip, activation attributes and input errors.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/error_of.h"
#include "tests/runtime/ops/op_test_util.h"

namespace ptq {
namespace {

using testing::ErrorOf;
using testing::FloatAttr;
using testing::IntAttr;
using testing::RunOp;
using testing::StringAttr;
using testing::ToVector;

constexpr double kTol = 1e-6;  // relative, float32 against double formulas

AttributeValue Strings(const std::vector<std::string>& v) {
  AttributeValue a;
  a.kind = AttributeValue::Kind::kStrings;
  a.strings = v;
  return a;
}

// hidden 1, input 1: X [seq 3, batch 2, 1] = {1, 2; 3, 4; 5, 6}, W = 0.5, R = -0.25, B = (0.1, 0.2).
std::vector<Tensor> RnnInputs(int64_t dirs, std::vector<int32_t> lens) {
  return {Tensor::FromVector<float>({3, 2, 1}, {1, 2, 3, 4, 5, 6}),
          Tensor::FromVector<float>({dirs, 1, 1}, std::vector<float>(static_cast<size_t>(dirs), 0.5f)),
          Tensor::FromVector<float>({dirs, 1, 1}, std::vector<float>(static_cast<size_t>(dirs), -0.25f)),
          Tensor::FromVector<float>(
              {dirs, 2}, dirs == 1 ? std::vector<float>{0.1f, 0.2f} : std::vector<float>{0.1f, 0.2f, 0.1f, 0.2f}),
          Tensor::FromVector<int32_t>({2}, lens)};
}

TEST(RNNOp, BidirectionalWithShortSequences) {
  Attributes a;
  a.Set("direction", StringAttr("bidirectional"));
  a.Set("hidden_size", IntAttr(1));
  const auto out = RunOp("RNN", 14, a, RnnInputs(2, {3, 2}), 2);
  ASSERT_EQ(out[0].shape(), (Shape{3, 2, 2, 1}));
  const std::vector<float> y = ToVector<float>(out[0]);
  const double x[3][2] = {{1, 2}, {3, 4}, {5, 6}};
  const int len[2] = {3, 2};
  for (int d = 0; d < 2; ++d) {
    for (int b = 0; b < 2; ++b) {
      double h = 0;
      for (int s = 0; s < len[b]; ++s) {
        const int t = d == 0 ? s : len[b] - 1 - s;
        h = std::tanh(0.5 * x[t][b] + 0.1 - 0.25 * h + 0.2);
        EXPECT_NEAR(y[static_cast<size_t>((t * 2 + d) * 2 + b)], h, kTol) << "d " << d << " b " << b << " t " << t;
      }
      EXPECT_NEAR(out[1].data<float>()[d * 2 + b], h, kTol);
    }
  }
  EXPECT_EQ(y[static_cast<size_t>((2 * 2 + 0) * 2 + 1)], 0.0f);  // batch 1 has no step 2
  EXPECT_EQ(y[static_cast<size_t>((2 * 2 + 1) * 2 + 1)], 0.0f);
}

TEST(RNNOp, ClipAndActivationAttributes) {
  Attributes a;
  a.Set("clip", FloatAttr(0.3f));
  a.Set("activations", Strings({"Affine"}));
  AttributeValue alpha;
  alpha.kind = AttributeValue::Kind::kFloats;
  alpha.floats = {2.0f};
  a.Set("activation_alpha", alpha);
  const auto out = RunOp("RNN", 14, a, RnnInputs(1, {1, 1}), 2);
  // Step 0 of both entries: 2 * clip(0.5 x + 0.3, +-0.3) + 0 = 0.6.
  EXPECT_NEAR(ToVector<float>(out[1])[0], 0.6, kTol);
  EXPECT_NEAR(ToVector<float>(out[1])[1], 0.6, kTol);
  a.Set("activations", Strings({"Swish"}));
  EXPECT_NE(ErrorOf([&] {
              RunOp("RNN", 14, a, RnnInputs(1, {1, 1}), 2);
            }).find("unknown function 'swish'"),
            std::string::npos);
  a.Set("activations", Strings({"Tanh", "Tanh"}));
  EXPECT_NE(ErrorOf([&] { RunOp("RNN", 14, a, RnnInputs(1, {1, 1}), 2); }), "");
}

// The same GRU and LSTM runs in layout 0 and layout 1 (batch-major) agree after transposition.
void ExpectLayoutsAgree(const std::string& op, int gates, int outputs) {
  const int64_t seq = 2, batch = 3, input = 2, hidden = 2;
  auto values = [](int64_t n, float scale) {
    std::vector<float> v(static_cast<size_t>(n));
    for (size_t i = 0; i < v.size(); ++i) v[i] = scale * std::sin(static_cast<float>(i) + 1.0f);
    return v;
  };
  const std::vector<float> x = values(seq * batch * input, 1.0f);
  std::vector<float> x_bm(x.size());
  for (int64_t t = 0; t < seq; ++t)
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t i = 0; i < input; ++i)
        x_bm[static_cast<size_t>((b * seq + t) * input + i)] = x[static_cast<size_t>((t * batch + b) * input + i)];
  const Tensor w = Tensor::FromVector<float>({1, gates * hidden, input}, values(gates * hidden * input, 0.5f));
  const Tensor r = Tensor::FromVector<float>({1, gates * hidden, hidden}, values(gates * hidden * hidden, 0.3f));
  Attributes a;
  const auto seq_major = RunOp(op, 14, a, {Tensor::FromVector<float>({seq, batch, input}, x), w, r}, outputs);
  a.Set("layout", IntAttr(1));
  const auto batch_major = RunOp(op, 14, a, {Tensor::FromVector<float>({batch, seq, input}, x_bm), w, r}, outputs);
  ASSERT_EQ(batch_major[0].shape(), (Shape{batch, seq, 1, hidden}));
  ASSERT_EQ(batch_major[1].shape(), (Shape{batch, 1, hidden}));
  const std::vector<float> y0 = ToVector<float>(seq_major[0]), y1 = ToVector<float>(batch_major[0]);
  for (int64_t t = 0; t < seq; ++t)
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t j = 0; j < hidden; ++j) {
        EXPECT_EQ(y1[static_cast<size_t>((b * seq + t) * hidden + j)],
                  y0[static_cast<size_t>((t * batch + b) * hidden + j)]);
      }
  EXPECT_EQ(ToVector<float>(batch_major[1]), ToVector<float>(seq_major[1]));  // [batch, 1, h] == [1, batch, h]
}

TEST(GRUOp, Layout1MatchesLayout0) { ExpectLayoutsAgree("GRU", 3, 2); }
TEST(LSTMOp, Layout1MatchesLayout0) { ExpectLayoutsAgree("LSTM", 4, 3); }

TEST(LSTMOp, InputErrors) {
  const Tensor x = Tensor(DataType::kFloat, {1, 1, 2});
  const Tensor w = Tensor(DataType::kFloat, {1, 8, 2});
  const Tensor r = Tensor(DataType::kFloat, {1, 8, 2});
  EXPECT_NE(ErrorOf([&] {
              RunOp("LSTM", 14, Attributes(), {x, Tensor(DataType::kFloat, {1, 4, 2}), r}, 3);
            }).find("input 'W' has shape [1, 4, 2], expected [1, 8, 2]"),
            std::string::npos);
  Attributes a;
  a.Set("hidden_size", IntAttr(3));
  EXPECT_NE(ErrorOf([&] { RunOp("LSTM", 14, a, {x, w, r}, 3); }).find("'hidden_size' is 3"), std::string::npos);
  EXPECT_NE(ErrorOf([&] {
              RunOp("LSTM", 14, Attributes(), {x, w, r, Tensor(), Tensor::FromVector<int32_t>({1}, {2})}, 3);
            }).find("sequence_lens[0] is 2"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { RunOp("LSTM", 14, Attributes(), {Tensor(DataType::kDouble, {1, 1, 2}), w, r}, 3); }), "");
  Attributes dir;
  dir.Set("direction", StringAttr("both"));
  EXPECT_NE(ErrorOf([&] { RunOp("LSTM", 14, dir, {x, w, r}, 3); }), "");
  // A huge declared hidden size on an empty R is refused before any buffer is sized from it.
  EXPECT_NE(ErrorOf([&] {
              RunOp("LSTM", 14, Attributes(),
                    {Tensor(DataType::kFloat, {1, 1 << 20, 2}), Tensor(DataType::kFloat, {1, 0, 2}),
                     Tensor(DataType::kFloat, {1, 0, int64_t{1} << 40})},
                    3);
            }),
            "");
}

}  // namespace
}  // namespace ptq
