// The rewrite inlines external data of Constant nodes as it does for initializers: the int8 model does
// not depend on files beside the float model, and ONNX's checker never looks for them in the current
// folder.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "rewrite/rewriter.h"
#include "tests/rewrite/tensor_quant_builder.h"
#include "tests/runtime/model_builder.h"

namespace ptq {
namespace {

namespace fs = std::filesystem;
using testing::ModelBuilder;

using testing::Param;

TEST(ExternalConstant, ConstantNodeWeightFromAnExternalFileIsInlinedAndQuantized) {
  const fs::path dir = fs::temp_directory_path() / ("ptq_ext_const_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const float w[6] = {0.5f, -0.25f, 1.0f, 0.75f, -1.0f, 0.125f};  // [2, 3]
  std::ofstream(dir / "w.bin", std::ios::binary).write(reinterpret_cast<const char*>(w), sizeof(w));

  ModelBuilder m;
  m.Input("x", DataType::kFloat, {4, 2});
  onnx::NodeProto& c = m.Node("Constant", {}, {"w"}, "weight");
  auto* a = c.add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  onnx::TensorProto* t = a->mutable_t();
  t->set_data_type(onnx::TensorProto::FLOAT);
  t->add_dims(2);
  t->add_dims(3);
  t->set_data_location(onnx::TensorProto::EXTERNAL);
  auto* kv = t->add_external_data();
  kv->set_key("location");
  kv->set_value("w.bin");
  m.Node("MatMul", {"x", "w"}, {"y"}, "mm");
  m.Node("Sigmoid", {"y"}, {"z"}, "sigmoid");
  m.Output("z", DataType::kFloat, {4, 3});

  QuantTable table;
  table.tensors["x"] = Param(TensorRole::kActivation, {0.01f}, DataType::kUint8);
  table.tensors["y"] = Param(TensorRole::kActivation, {0.02f}, DataType::kUint8);
  table.tensors["w"] = Param(TensorRole::kWeight, {1.0f / 127, 1.0f / 127, 1.0f / 127}, DataType::kInt8, 1);
  RewriteInfo info;
  // Run from another folder than the model's: nothing may be looked up relative to the current one.
  const fs::path cwd = fs::current_path();
  fs::current_path(fs::temp_directory_path());
  onnx::ModelProto out;
  EXPECT_NO_THROW(out = RewriteModel(m.model(), dir.string(), table, QuantizationOptions(), {}, &info));
  fs::current_path(cwd);
  EXPECT_TRUE(info.skipped.empty());
  EXPECT_EQ(info.op_counts.count("QLinearMatMul") + info.op_counts.count("MatMulInteger"), 1u);
  for (const auto& i : out.graph().initializer()) EXPECT_NE(i.data_location(), onnx::TensorProto::EXTERNAL) << i.name();
  for (const auto& n : out.graph().node()) {
    for (const auto& at : n.attribute()) EXPECT_FALSE(at.has_t() && at.t().data_location() == onnx::TensorProto::EXTERNAL);
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ptq
