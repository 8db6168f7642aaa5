// Tests of the rewrite's table reader on malformed tables: every problem is an input error naming the
// file and tensor, never a nlohmann exception, an out-of-range conversion or a deep recursion.
#include "runtime/quant_table.h"

#include <gtest/gtest.h>

#include <functional>

namespace ptq {
namespace {

std::string ErrorOf(const std::string& text) {
  try {
    ParseQuantTable(text, "t.json");
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInput) << e.what();
    return e.what();
  }
  return "";
}

std::string Table(const std::string& entry) {
  return R"({"format": "ptq-calibration-table", "version": 1, "model_sha256": "m", "config_sha256": "c", "tensors": {"x": )" +
         entry + "}}";
}

TEST(QuantTableLimits, WellFormedTableReads) {
  const QuantTable t = ParseQuantTable(
      Table(R"({"role": "weight", "dtype": "int8", "scale": [0.1, 0.2], "zero_point": [0, 0], "shape": [3, 2], "axis": 1})"), "t.json");
  EXPECT_EQ(t.tensors.at("x").scales.size(), 2u);
  EXPECT_EQ(t.tensors.at("x").axis, 1);
}

TEST(QuantTableLimits, DeepNestingIsRefused) {
  const std::string err = ErrorOf(Table(std::string(100000, '[') + std::string(100000, ']')));
  EXPECT_NE(err.find("t.json: JSON nested deeper than 64 levels"), std::string::npos) << err;
}

TEST(QuantTableLimits, MissingAndMistypedTopLevelFieldsAreNamed) {
  EXPECT_NE(ErrorOf(R"({"format": "ptq-calibration-table", "version": 1, "model_sha256": "m", "config_sha256": "c"})")
                .find("missing field 'tensors'"),
            std::string::npos);
  EXPECT_NE(ErrorOf(R"({"format": "ptq-calibration-table", "version": "1"})").find("version \"1\" is not supported"), std::string::npos);
  EXPECT_NE(ErrorOf(R"({"format": "ptq-calibration-table", "version": 1, "model_sha256": 5})").find("'model_sha256' must be a string"),
            std::string::npos);
  EXPECT_NE(ErrorOf("[1]").find("not a ptq calibration table"), std::string::npos);
  EXPECT_NE(ErrorOf("{").find("not valid JSON"), std::string::npos);
}

TEST(QuantTableLimits, NumbersOutsideTheirTypesAreErrorsNotConversions) {
  const char* cases[][2] = {
      {R"({"role": "activation", "dtype": "uint8", "scale": [0.1], "zero_point": [1e300], "shape": []})", "'zero_point' must hold integers"},
      {R"({"role": "activation", "dtype": "uint8", "scale": [0.1], "zero_point": [256], "shape": []})", "in [0, 255]"},
      {R"({"role": "activation", "dtype": "int8", "scale": [0.1], "zero_point": [-129], "shape": []})", "in [-128, 127]"},
      {R"({"role": "activation", "dtype": "uint8", "scale": [1e300], "zero_point": [0], "shape": []})", "not a positive finite number"},
      {R"({"role": "activation", "dtype": "uint8", "scale": [0.1], "zero_point": [0], "shape": [-1]})", "'shape' must hold integers"},
      {R"({"role": "activation", "dtype": "uint8", "scale": [0.1], "zero_point": [0], "shape": [2], "axis": 1e10})", "'axis'"},
      {R"({"role": "weight", "dtype": "int8", "scale": [0.1, 0.1], "zero_point": [0, 0], "shape": [3, 4], "axis": 2})", "in [-1, 1]"},
      {R"({"role": "weight", "dtype": "int8", "scale": [0.1, 0.1], "zero_point": [0, 0], "shape": [3, 4], "axis": 0})", "one per channel"},
      {R"({"role": 1, "dtype": "int8", "scale": [0.1], "zero_point": [0], "shape": []})", "'role' must be a string"},
      {R"("not an object")", "tensor 'x': expected an object"},
  };
  for (const auto& c : cases) {
    const std::string err = ErrorOf(Table(c[0]));
    EXPECT_NE(err.find("t.json: tensor 'x'"), std::string::npos) << c[0] << ": " << err;
    EXPECT_NE(err.find(c[1]), std::string::npos) << c[0] << ": " << err;
  }
}

}  // namespace
}  // namespace ptq
