// Tests of config limits: deep, huge or malformed configs and --set values are usage errors naming the
// file or flag; regexes and override values that could crash or hang later are refused when parsed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "cli/config_file.h"
#include "runtime/quantization_options.h"
#include "runtime/error.h"
#include "tests/error_of.h"

namespace ptq {
namespace {

namespace fs = std::filesystem;

std::string UsageErrorOf(const std::function<void()>& f) { return testing::ErrorOf(f, ErrorKind::kUsage); }

class ConfigLimits : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ptq_cfglimits_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Config(const std::string& text) {
    const fs::path p = dir_ / "c.json";
    std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
    return p.string();
  }
  fs::path dir_;
};

TEST_F(ConfigLimits, DeeplyNestedConfigIsAUsageErrorNotAStackOverflow) {
  const std::string path = Config("{\"model\": \"m.onnx\", \"calibration\": " + std::string(100000, '[') + std::string(100000, ']') + "}");
  const std::string err = UsageErrorOf([&] { LoadConfig(path, {}); });
  EXPECT_NE(err.find(path + ": JSON nested deeper than 32 levels"), std::string::npos) << err;
}

TEST_F(ConfigLimits, HugeConfigIsRefusedBeforeReading) {
  const std::string path = Config("{\"model\": \"" + std::string(17 << 20, 'a') + "\"}");
  try {
    LoadConfig(path, {});
    FAIL() << "loaded a 17 MiB config";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("larger than the limit of 16777216"), std::string::npos) << e.what();
  }
}

TEST_F(ConfigLimits, NumberOutOfRangeIsAUsageError) {
  const std::string err = UsageErrorOf([&] { LoadConfig(Config(R"({"model": "m.onnx", "calibration": {"percentile": 1e999}})"), {}); });
  EXPECT_NE(err.find("not valid JSON"), std::string::npos) << err;
}

TEST_F(ConfigLimits, SetValuesAreCheckedToo) {
  const std::string path = Config(R"({"model": "m.onnx"})");
  EXPECT_NE(UsageErrorOf([&] { LoadConfig(path, {"quantization.exclude_nodes=\xff\xfe"}); }).find("not valid UTF-8"), std::string::npos);
  EXPECT_NE(UsageErrorOf([&] { LoadConfig(path, {"a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q=1"}); }).find("too deep"), std::string::npos);
  // A deeply nested value is taken as a string (as any other text that is not valid JSON).
  const ConfigFile c = LoadConfig(path, {"output=" + std::string(1000, '[')});
  EXPECT_TRUE(c.json.at("output").is_string());
}

TEST_F(ConfigLimits, ExcludeRegexesThatCouldOverflowTheStackAreRefused) {
  auto rewrite = [](const std::string& pattern) {
    return nlohmann::json{{"quantization", {{"exclude_nodes", {pattern}}}}};
  };
  EXPECT_NE(UsageErrorOf([&] { ParseQuantizationOptions(rewrite("/" + std::string(300, 'a') + "/")); }).find("too complex"), std::string::npos);
  EXPECT_NE(UsageErrorOf([&] { ParseQuantizationOptions(rewrite("/" + std::string(9, '(') + "a" + std::string(9, ')') + "/")); }).find("too complex"),
            std::string::npos);
  EXPECT_NE(UsageErrorOf([&] { ParseQuantizationOptions(rewrite("/(a)\\1/")); }).find("not a valid regex"), std::string::npos);
  const QuantizationOptions c = ParseQuantizationOptions(rewrite("/(a|b)*c/"));
  EXPECT_TRUE(IsExcluded(c, "aabc"));
  // A long node name (from a model) is not searched with a regex: no stack overflow, no exponential time.
  EXPECT_FALSE(IsExcluded(c, std::string(100000, 'a') + "c"));
}

TEST_F(ConfigLimits, OverrideValuesMustFitFloat32AndTheQuantizedType) {
  auto overrides = [](const nlohmann::json& o) { return nlohmann::json{{"quantization", {{"overrides", {{"t", o}}}}}}; };
  EXPECT_NE(UsageErrorOf([&] { ParseQuantizationOptions(overrides({{"scale", 1e300}})); }).find("positive finite"), std::string::npos);
  EXPECT_NE(UsageErrorOf([&] { ParseQuantizationOptions(overrides({{"min", -1e300}, {"max", 1}})); }).find("finite"), std::string::npos);
  EXPECT_NE(UsageErrorOf([&] { ParseQuantizationOptions(overrides({{"scale", 0.5}, {"zero_point", 100000}})); }).find("at most 255"),
            std::string::npos);
}

}  // namespace
}  // namespace ptq
