// Tests of JSON text limits (ParseJsonText) and of checked JSON field reading: nesting, size and value
// count are refused before parsing, and no nlohmann exception or out-of-range conversion escapes.
#include <gtest/gtest.h>

#include <functional>

#include "runtime/json_fields.h"
#include "tests/error_of.h"

namespace ptq {
namespace {

using testing::ErrorOf;

std::string Nested(int depth) { return std::string(static_cast<size_t>(depth), '[') + std::string(static_cast<size_t>(depth), ']'); }

TEST(JsonLimits, DeepNestingIsRefusedBeforeParsing) {
  const std::string err = ErrorOf([] { ParseJsonText(Nested(100000), "deep.json", ErrorKind::kUsage); }, ErrorKind::kUsage);
  EXPECT_NE(err.find("deep.json: JSON nested deeper than 64 levels (line 1)"), std::string::npos) << err;
  EXPECT_EQ(ErrorOf([] { ParseJsonText(Nested(64), "ok.json", ErrorKind::kInput); }), "");
  EXPECT_NE(ErrorOf([] { ParseJsonText("{\"a\":\n" + Nested(65) + "}", "t.json", ErrorKind::kInput); }).find("(line 2)"),
            std::string::npos);
}

TEST(JsonLimits, BracketsInsideStringsDoNotCount) {
  const std::string text = "{\"k\": \"" + std::string(1000, '[') + "\\\"" + std::string(1000, '{') + "\"}";
  EXPECT_EQ(ErrorOf([&] { EXPECT_EQ(ParseJsonText(text, "s.json", ErrorKind::kInput).at("k").get<std::string>().size(), 2001u); }), "");
}

TEST(JsonLimits, SizeAndValueCountAreLimited) {
  JsonLimits limits;
  limits.max_bytes = 10;
  EXPECT_NE(ErrorOf([&] { ParseJsonText("[1, 2, 3, 4, 5]", "b.json", ErrorKind::kInput, limits); })
                .find("b.json: JSON text of 15 bytes is larger than the limit of 10"),
            std::string::npos);
  limits = JsonLimits();
  limits.max_values = 100;
  std::string many = "[0";
  for (int i = 0; i < 200; ++i) many += ",0";
  many += "]";
  EXPECT_NE(ErrorOf([&] { ParseJsonText(many, "v.json", ErrorKind::kInput, limits); }).find("more than 100 values"),
            std::string::npos);
}

TEST(JsonLimits, InvalidJsonAndOverflowingNumbersAreErrorsOfTheGivenKind) {
  EXPECT_NE(ErrorOf([] { ParseJsonText("{\"a\": 1e999}", "n.json", ErrorKind::kUsage); }, ErrorKind::kUsage).find("n.json: not valid JSON"),
            std::string::npos);
  EXPECT_NE(ErrorOf([] { ParseJsonText("{\"a\": }", "p.json", ErrorKind::kInput); }).find("p.json: not valid JSON"), std::string::npos);
  EXPECT_NE(ErrorOf([] { ParseJsonText("// comment\n{}", "c.json", ErrorKind::kInput); }).find("not valid JSON"), std::string::npos);
}

TEST(JsonFieldReading, IntegersMustBeIntegersInRange) {
  const auto j = nlohmann::json::parse(R"({"f": 1e300, "big": 18446744073709551615, "neg": -5, "ok": 7, "s": "7"})");
  EXPECT_NE(ErrorOf([&] { JsonInteger(j.at("f"), "f", "t", 0, 10); }).find("t: field 'f' must hold integers in [0, 10]"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { JsonInteger(j.at("big"), "big", "t", INT64_MIN, INT64_MAX); }), "");
  EXPECT_NE(ErrorOf([&] { JsonInteger(j.at("neg"), "neg", "t", 0, 10); }), "");
  EXPECT_NE(ErrorOf([&] { JsonInteger(j.at("s"), "s", "t", 0, 10); }), "");
  EXPECT_EQ(JsonInteger(j.at("ok"), "ok", "t", 0, 10), 7);
  EXPECT_NE(ErrorOf([&] { JsonField(j, "missing", "t"); }).find("t: missing field 'missing'"), std::string::npos);
  EXPECT_NE(ErrorOf([&] { JsonField(j.at("ok"), "x", "t"); }).find("expected an object"), std::string::npos);
  EXPECT_NE(ErrorOf([&] { JsonFloatList(j, "ok", "t"); }).find("must be a list of numbers"), std::string::npos);
}

TEST(JsonSectionLimits, HugeWrongTypedValueIsShortenedInTheMessage) {
  std::string list = "1";
  for (int i = 0; i < 2000; ++i) list += ",1";
  const auto j = nlohmann::json::parse("{\"method\": [" + list + "]}");
  const std::string err = ErrorOf([&] { JsonSection(j, "calibration", {"method"}).GetString("method", ""); }, ErrorKind::kUsage);
  EXPECT_LT(err.size(), 300u) << err;
  const auto u = nlohmann::json::parse("{\"n\": 18446744073709551615}");
  EXPECT_NE(ErrorOf([&] { JsonSection(u, "", {"n"}).GetInt("n", 0, 0); }, ErrorKind::kUsage).find("too large"), std::string::npos);
}

}  // namespace
}  // namespace ptq
