// QuantizeWeight: per-tensor and per-channel weights through quant_math.h, and table entries that do not
// fit the model's weight refused as input errors naming it.
#include <gtest/gtest.h>

#include <string>

#include "rewrite/qdq_util.h"
#include "runtime/error.h"
#include "runtime/quant_math.h"

namespace ptq {
namespace {

Tensor Weight(const Shape& shape) {
  Tensor w(DataType::kFloat, shape);
  for (int64_t i = 0; i < w.size(); ++i) w.data<float>()[i] = 0.37f * static_cast<float>(i) - 2.0f;
  return w;
}

TensorQuant PerChannel(int64_t axis, std::vector<float> scales) {
  TensorQuant q;
  q.role = TensorRole::kWeight;
  q.dtype = DataType::kInt8;
  q.axis = axis;
  q.zero_points.assign(scales.size(), 0);
  q.scales = std::move(scales);
  return q;
}

std::string InputError(const Tensor& w, const TensorQuant& q) {
  try {
    QuantizeWeight(w, q, "layer.0/w:0");
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInput) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "accepted";
  return "";
}

TEST(QuantizeWeight, PerChannelAlongTheTableAxisMatchesQuantizeValue) {
  const Tensor w = Weight({2, 3});
  const TensorQuant q = PerChannel(1, {0.01f, 0.02f, 0.04f});
  const Tensor out = QuantizeWeight(w, q, "w");
  ASSERT_EQ(out.dtype(), DataType::kInt8);
  for (int64_t i = 0; i < w.size(); ++i) {
    const size_t c = static_cast<size_t>(i % 3);
    EXPECT_EQ(out.data<int8_t>()[i], QuantizeValue(w.data<float>()[i], q.scales[c], 0, -128, 127)) << i;
  }
}

TEST(QuantizeWeight, AxisBeyondTheWeightRankIsAnInputError) {
  const std::string e = InputError(Weight({2, 3}), PerChannel(2, {0.1f, 0.1f}));
  EXPECT_NE(e.find("quantizes weight 'layer.0/w:0' along axis 2, but its shape is [2, 3]"), std::string::npos) << e;
}

TEST(QuantizeWeight, ScaleCountDifferentFromTheChannelsIsAnInputError) {
  const std::string e = InputError(Weight({2, 3}), PerChannel(1, {0.1f, 0.1f}));
  EXPECT_NE(e.find("gives weight 'layer.0/w:0' 2 scales and 2 zero points"), std::string::npos) << e;
  EXPECT_NE(e.find("3 channels along axis 1"), std::string::npos) << e;
}

TEST(QuantizeWeight, Int32DtypeIsAnInputError) {
  TensorQuant q = PerChannel(-1, {0.1f});
  q.dtype = DataType::kInt32;
  EXPECT_NE(InputError(Weight({2, 3}), q).find("the dtype int32; weights are quantized to int8 or uint8"),
            std::string::npos);
}

}  // namespace
}  // namespace ptq
