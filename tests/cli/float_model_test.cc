// Tests of FloatModel: weights inside the .onnx file go to a scratch data file beside the output that
// every stage maps (removed afterwards), the stages see the same model either way, and `ptq quantize`
// (scratch copy) writes the same int8 model as `ptq rewrite` (no scratch copy) from the same table.
#include "cli/float_model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "runtime/error.h"
#include "runtime/graph.h"
#include "runtime/mapped_file.h"
#include "runtime/model_io.h"
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

// y = relu(x·W1)·W2 with W1, W2 [n, n] inline; written to `path`.
void WriteMlp(const fs::path& path, int64_t n) {
  ModelBuilder b(13);
  b.Input("x", DataType::kFloat, {-1, n}).Output("y", DataType::kFloat, {-1, n});
  for (const char* w : {"W1", "W2"}) {
    std::vector<float> v(static_cast<size_t>(n * n));
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(static_cast<int>((i * 7919 + w[1]) % 61) - 30) / (30.0f * n);
    b.Initializer(w, Tensor::FromVector<float>({n, n}, v));
  }
  b.Node("MatMul", {"x", "W1"}, {"h"}, "fc1");
  b.Node("Relu", {"h"}, {"r"}, "relu");
  b.Node("MatMul", {"r", "W2"}, {"y"}, "fc2");
  std::ofstream(path, std::ios::binary) << b.Serialize();
}

TEST(FloatModel, InlineWeightsGoToAMappedScratchFileThatIsRemovedAfterwards) {
  TempDir tmp;
  WriteMlp(tmp.path() / "m.onnx", 64);  // 16 KiB per weight
  const std::string out = (tmp.path() / "out" / "m.int8.onnx").string();
  {
    const FloatModel model((tmp.path() / "m.onnx").string(), out, /*scratch_threshold=*/1024);
    ASSERT_TRUE(model.scratch());
    EXPECT_EQ(model.dir(), (tmp.path() / "out").string());
    EXPECT_EQ(model.path(), (tmp.path() / "m.onnx").string());
    const onnx::ModelProto p = model.Proto();
    EXPECT_EQ(p.graph().initializer(0).data_location(), onnx::TensorProto::EXTERNAL);
    EXPECT_LT(p.ByteSizeLong(), 2000u);
    const Graph mapped = GraphFromModel(p, model.dir(), model.path());
    const Graph loaded = LoadGraph((tmp.path() / "m.onnx").string());
    for (const char* w : {"W1", "W2"}) {
      EXPECT_TRUE(IsMappedBuffer(mapped.constants.at(w).buffer()));
      EXPECT_EQ(mapped.constants.at(w).ToFloatVector(), loaded.constants.at(w).ToFloatVector()) << w;
    }
    EXPECT_EQ(std::distance(fs::directory_iterator(tmp.path() / "out"), fs::directory_iterator()), 1);
  }
  EXPECT_EQ(std::distance(fs::directory_iterator(tmp.path() / "out"), fs::directory_iterator()), 0);
  // Below the threshold, or for a command that reads the model once: no scratch copy, the file itself.
  const FloatModel small((tmp.path() / "m.onnx").string(), out);
  EXPECT_FALSE(small.scratch());
  EXPECT_EQ(small.dir(), tmp.path().string());
  EXPECT_EQ(small.Proto().SerializeAsString(), ReadText(tmp.path() / "m.onnx"));
  EXPECT_FALSE(FloatModel((tmp.path() / "m.onnx").string()).scratch());
}

// A model whose weights are external data in its own folder: the scratch folder gets hard links to its
// data files (no copy), under the path rule of external data; they go with the FloatModel.
TEST(FloatModel, ExternalDataElsewhereIsLinkedBesideTheOutput) {
  TempDir tmp;
  fs::create_directories(tmp.path() / "in");
  const std::string weights((64 * 64 + 16) * 4, '\x3c');
  std::ofstream(tmp.path() / "in" / "w.bin", std::ios::binary) << weights;
  ModelBuilder b(13);
  b.Input("x", DataType::kFloat, {1, 64}).Output("y", DataType::kFloat, {1, 64});
  auto* t = b.model().mutable_graph()->add_initializer();
  t->set_name("W");
  t->set_data_type(onnx::TensorProto::FLOAT);
  t->add_dims(64);
  t->add_dims(64);
  t->set_data_location(onnx::TensorProto::EXTERNAL);
  auto* loc = t->add_external_data();
  loc->set_key("location");
  loc->set_value("w.bin");
  b.Node("MatMul", {"x", "W"}, {"y"});
  std::ofstream(tmp.path() / "in" / "m.onnx", std::ios::binary) << b.Serialize();
  const fs::path out = tmp.path() / "out";
  {
    const FloatModel model((tmp.path() / "in" / "m.onnx").string(), (out / "m.int8.onnx").string());
    ASSERT_TRUE(model.scratch());
    EXPECT_EQ(model.dir(), out.string());
    const onnx::ModelProto p = model.Proto();
    const std::string link = p.graph().initializer(0).external_data(0).value();
    EXPECT_NE(link.find(".w.bin.ptq-tmp-"), std::string::npos) << link;
    EXPECT_TRUE(fs::equivalent(out / link, tmp.path() / "in" / "w.bin"));  // the same file, not a copy
    EXPECT_EQ(GraphFromModel(p, model.dir(), model.path()).constants.at("W").ToFloatVector(),
              LoadGraph((tmp.path() / "in" / "m.onnx").string()).constants.at("W").ToFloatVector());
  }
  EXPECT_TRUE(fs::is_empty(out));
  EXPECT_TRUE(fs::exists(tmp.path() / "in" / "w.bin"));
  // A location the path rule refuses is refused here too, before any link.
  t->mutable_external_data(0)->set_value("../in/w.bin");
  std::ofstream(tmp.path() / "in" / "bad.onnx", std::ios::binary) << b.Serialize();
  try {
    FloatModel((tmp.path() / "in" / "bad.onnx").string(), (out / "m.int8.onnx").string());
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'..'"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::is_empty(out));
}

// 2 x 16 MiB of weights inside the .onnx file: ptq quantize works from the scratch copy, ptq rewrite
// from the file itself; from the same table they write the same model, and no scratch file is left.
TEST(FloatModel, QuantizeFromTheScratchCopyWritesWhatRewriteWrites) {
  TempDir tmp;
  WriteMlp(tmp.path() / "m.onnx", 2048);
  fs::create_directories(tmp.path() / "calib");
  std::vector<float> x(4 * 2048);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<int>(i % 13) - 6) / 6.0f;
  WriteNpy((tmp.path() / "calib" / "x.npy").string(), Tensor::FromVector<float>({4, 2048}, x));
  const nlohmann::json c = {{"model", (tmp.path() / "m.onnx").string()},
                            {"output", (tmp.path() / "out" / "m.int8.onnx").string()},
                            {"calibration", {{"data", (tmp.path() / "calib").string()}}}};
  std::ofstream(tmp.path() / "c.json") << c.dump(1);
  auto r = RunPtq("quantize --quiet --config " + (tmp.path() / "c.json").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string quantized = ReadText(tmp.path() / "out" / "m.int8.onnx");
  r = RunPtq("rewrite --quiet --config " + (tmp.path() / "c.json").string() + " --out " +
             (tmp.path() / "rewritten.onnx").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(quantized, ReadText(tmp.path() / "rewritten.onnx"));
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(tmp.path() / "out")) left.push_back(e.path().filename().string());
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{"m.int8.calib.json", "m.int8.onnx", "m.int8.report.html", "m.int8.report.json"}));
  // With external data, the tensors kept float (fc2 excluded), which the rewrite left in the scratch
  // copy, are copied into the model's own data file: the model refers to that file only.
  r = RunPtq("quantize --quiet --config " + (tmp.path() / "c.json").string() +
             " --set output_external_data=always --set 'quantization.exclude_nodes=[\"fc2\"]'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  onnx::ModelProto m;
  LoadModelProto((tmp.path() / "out" / "m.int8.onnx").string(), &m);
  std::set<std::string> locations;
  bool float_w2 = false;
  for (const auto& t : m.graph().initializer()) {
    for (const auto& e : t.external_data()) {
      if (e.key() == "location") locations.insert(e.value());
    }
    float_w2 = float_w2 || (t.name() == "W2" && t.data_type() == onnx::TensorProto::FLOAT);
  }
  EXPECT_TRUE(float_w2);
  ASSERT_EQ(locations.size(), 1u);
  EXPECT_TRUE(fs::exists(tmp.path() / "out" / *locations.begin()));
  EXPECT_EQ(LoadGraph((tmp.path() / "out" / "m.int8.onnx").string()).constants.at("W2").ToFloatVector(),
            LoadGraph((tmp.path() / "m.onnx").string()).constants.at("W2").ToFloatVector());
}

}  // namespace
}  // namespace ptq
