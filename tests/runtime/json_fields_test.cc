// Tests of checked config-section reading: unknown keys with suggestions, wrong types, choices.
#include "runtime/json_fields.h"

#include <gtest/gtest.h>

#include "runtime/error.h"

namespace ptq {
namespace {

std::string UsageErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUsage);
    return e.what();
  }
  return "";
}

const std::vector<std::string> kKeys = {"data", "max_samples", "batch_size", "method", "percentile"};

TEST(JsonSection, UnknownKeyNamesPathAndSuggestsNearest) {
  const auto j = nlohmann::json::parse(R"({"methd": "entropy"})");
  const std::string err = UsageErrorOf([&] { JsonSection s(j, "calibration", kKeys); });
  EXPECT_NE(err.find("unknown key 'calibration.methd'"), std::string::npos) << err;
  EXPECT_NE(err.find("did you mean 'calibration.method'"), std::string::npos) << err;
}

TEST(JsonSection, FarOffKeyListsValidKeys) {
  const auto j = nlohmann::json::parse(R"({"zzzzzzzzzz": 1})");
  const std::string err = UsageErrorOf([&] { JsonSection s(j, "calibration", kKeys); });
  EXPECT_NE(err.find("valid keys here: data, max_samples"), std::string::npos) << err;
}

TEST(JsonSection, WrongTypesNameTheExpectedType) {
  const auto j = nlohmann::json::parse(R"({"max_samples": "many", "percentile": true, "batch_size": 0})");
  JsonSection s(j, "calibration", kKeys);
  std::string err = UsageErrorOf([&] { s.GetInt("max_samples", 1, 1); });
  EXPECT_NE(err.find("'calibration.max_samples' must be an integer, got string \"many\""), std::string::npos) << err;
  err = UsageErrorOf([&] { s.GetNumber("percentile", 1); });
  EXPECT_NE(err.find("must be a number, got boolean"), std::string::npos) << err;
  err = UsageErrorOf([&] { s.GetInt("batch_size", 1, 1); });
  EXPECT_NE(err.find("must be at least 1, got 0"), std::string::npos) << err;
}

TEST(JsonSection, ChoicesAndDefaults) {
  const auto j = nlohmann::json::parse(R"({"method": "entropi"})");
  JsonSection s(j, "calibration", kKeys);
  const std::string err = UsageErrorOf([&] { s.GetChoice("method", "minmax", {"minmax", "entropy"}); });
  EXPECT_NE(err.find("did you mean 'entropy'"), std::string::npos) << err;
  EXPECT_EQ(s.GetInt("batch_size", 7, 1), 7);
  EXPECT_EQ(s.GetString("data", "d"), "d");
}

TEST(JsonSection, NonObjectSectionIsAnError) {
  const auto j = nlohmann::json::parse("[1, 2]");
  const std::string err = UsageErrorOf([&] { JsonSection s(j, "quantization", kKeys); });
  EXPECT_NE(err.find("'quantization' must be an object, got array"), std::string::npos) << err;
}

}  // namespace
}  // namespace ptq
