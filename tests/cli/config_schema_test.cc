// configs/schema.json and the config parsers agree: every key the schema lists is accepted, a key it
// does not list is refused, and the bundled example config is complete and valid.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_test_util.h"

namespace ptq {
namespace {

using testing::ReadText;
using testing::RunPtq;

// A value the schema allows for a leaf property.
nlohmann::json SampleValue(const std::string& path, const nlohmann::json& p) {
  if (p.contains("enum")) return p["enum"][0];
  if (p.contains("default")) return p["default"];
  const std::string type = p.value("type", "");
  if (type == "boolean") return true;
  if (type == "integer") return p.value("minimum", 1);
  if (type == "number") return path.find("percentile") != std::string::npos ? 99.0 : 0.5;
  if (type == "array") return nlohmann::json::array();
  const std::string data = std::string(PTQ_SOURCE_DIR) + "/tests/data/digits_vit/";
  if (path == "validation.labels") return data + "eval_labels.npy";
  if (path == "validation.report") return "/tmp/ptq_schema_test.report.html";
  if (path == "calibration.table") return "/tmp/ptq_schema_test.calib.json";
  if (path.find("data") != std::string::npos) return data + "calib";
  return "x";
}

void Leaves(const std::string& prefix, const nlohmann::json& schema, std::vector<std::pair<std::string, nlohmann::json>>* out) {
  for (const auto& [key, p] : schema["properties"].items()) {
    const std::string path = prefix.empty() ? key : prefix + "." + key;
    if (p.value("type", "") == "object" && p.contains("properties")) {
      Leaves(path, p, out);
    } else if (p.value("type", "") != "object") {
      out->push_back({path, SampleValue(path, p)});
    }
  }
}

TEST(ConfigSchema, EveryKeyOfTheSchemaIsAcceptedAndOthersAreNot) {
  const std::string root = std::string(PTQ_SOURCE_DIR) + "/configs/";
  const auto schema = nlohmann::json::parse(ReadText(root + "schema.json"));
  std::vector<std::pair<std::string, nlohmann::json>> leaves;
  Leaves("", schema, &leaves);
  ASSERT_GT(leaves.size(), 20u);
  for (const auto& [path, value] : leaves) {
    if (path == "model" || path == "output") continue;
    const auto r = RunPtq("quantize --config " + root + "example.json --print-config --set '" + path + "=" + value.dump() + "'");
    EXPECT_EQ(r.exit_code, 0) << path << " = " << value.dump() << ": " << r.output;
  }
  for (const char* bad : {"calibration.batchsize=4", "quantization.weights.axis=1", "validation.gate.min_sqnr=3"}) {
    const auto r = RunPtq("quantize --config " + root + "example.json --print-config --set " + bad);
    EXPECT_EQ(r.exit_code, 1) << bad << ": " << r.output;
  }
  // The example sets every section; --print-config reproduces its values.
  const auto r = RunPtq("quantize --config " + root + "example.json --print-config");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto c = nlohmann::json::parse(r.output);
  EXPECT_EQ(c["validation"]["gate"]["min_sqnr_db"], 25.0);
  EXPECT_EQ(c["calibration"]["batch_size"], 16);
}

// validation.tasks maps output names to one of the schema's task objects: each with every key it lists
// is accepted; a key it does not list is refused.
TEST(ConfigSchema, EveryTaskOfTheSchemaIsAcceptedWithItsKeysAndNoOthers) {
  const std::string root = std::string(PTQ_SOURCE_DIR) + "/configs/";
  const auto schema = nlohmann::json::parse(ReadText(root + "schema.json"));
  const auto& variants = schema["properties"]["validation"]["properties"]["tasks"]["additionalProperties"]["oneOf"];
  ASSERT_EQ(variants.size(), 4u);
  for (const auto& v : variants) {
    nlohmann::json task = nlohmann::json::object();
    for (const auto& [key, p] : v["properties"].items()) {
      task[key] = p.contains("const") ? p["const"] : SampleValue("validation.tasks.logits." + key, p);
    }
    const nlohmann::json tasks = {{"logits", task}};
    auto r = RunPtq("quantize --config " + root + "example.json --print-config --set 'validation.tasks=" + tasks.dump() + "'");
    ASSERT_EQ(r.exit_code, 0) << tasks.dump() << ": " << r.output;
    EXPECT_EQ(nlohmann::json::parse(r.output)["validation"]["tasks"]["logits"], task);  // every key, as given
    nlohmann::json extra = tasks;
    extra["logits"]["unlisted"] = 1;
    r = RunPtq("quantize --config " + root + "example.json --print-config --set 'validation.tasks=" + extra.dump() + "'");
    EXPECT_EQ(r.exit_code, 1) << extra.dump() << ": " << r.output;
  }
}

}  // namespace
}  // namespace ptq
