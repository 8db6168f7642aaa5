// Tests of the limits of the calibration table reader (merge-stats) and of .npy headers: malformed
// numbers, histogram memory, deep nesting and header sizes are input errors before any allocation.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "calibrate/calibration_table.h"
#include "calibrate/npz_reader.h"
#include "calibrate/sample_reader.h"
#include "runtime/npy.h"
#include "tests/error_of.h"

namespace ptq {
namespace {

namespace fs = std::filesystem;

using testing::ErrorOf;

nlohmann::json Table(const nlohmann::json& tensor) {
  return {{"format", "ptq-calibration-table"}, {"version", 1}, {"model_sha256", "m"}, {"config_sha256", "c"},
          {"method", "minmax"}, {"percentile", 99.9}, {"shard", ""}, {"samples", 2}, {"tensors", {{"x", tensor}}}};
}

nlohmann::json Activation() {
  return {{"role", "activation"}, {"dtype", "uint8"}, {"range", {0, 1}}, {"scale", {0.5}}, {"zero_point", {0}}, {"shape", {2}}};
}

std::string Read(const nlohmann::json& j) {
  return ErrorOf([&] {
    TableProvenance p;
    CalibrationTableFromJson(j, "t.json", &p);
  });
}

TEST(CalibrationTableLimits, IntegersGivenAsHugeFloatsAreErrors) {
  nlohmann::json j = Table(Activation());
  j["version"] = 1e300;
  EXPECT_NE(Read(j).find("t.json: table version 1e+300 is not supported"), std::string::npos) << Read(j);
  j = Table(Activation());
  j["samples"] = -1;
  EXPECT_NE(Read(j).find("field 'samples'"), std::string::npos);
  nlohmann::json a = Activation();
  a["zero_point"] = {1e300};
  EXPECT_NE(Read(Table(a)).find("tensor 'x': field 'zero_point'"), std::string::npos);
  a = Activation();
  a["axis"] = 3;
  EXPECT_NE(Read(Table(a)).find("field 'axis' must hold integers in [-1, 0]"), std::string::npos);
  j = Table(Activation());
  j.erase("tensors");
  EXPECT_NE(Read(j).find("missing field 'tensors'"), std::string::npos);
}

TEST(CalibrationTableLimits, ZeroRunOfInt64MinIsAnErrorNotAnOverflow) {
  Histogram h(4);
  h.Add(std::vector<float>{0.0f, 1.0f});
  nlohmann::json a = Activation();
  a["stats"] = h.ToJson();
  EXPECT_EQ(Read(Table(a)), "");
  a["stats"]["counts"] = {1, INT64_MIN, 1};
  EXPECT_NE(Read(Table(a)).find("has a bad zero run"), std::string::npos) << Read(Table(a));
}

TEST(CalibrationTableLimits, HistogramMemoryIsHeldToTheTensorLimit) {
  const int64_t saved = MaxTensorBytes();
  SetMaxTensorBytes(int64_t{1} << 20);
  nlohmann::json a = Activation();
  a["stats"] = {{"num_bins", 1 << 16}, {"count", 0}, {"zeros", 0}, {"nan", 0}, {"pos_inf", 0}, {"neg_inf", 0}};
  nlohmann::json j = Table(a);
  j["tensors"]["y2"] = a;
  EXPECT_EQ(Read(j), "");  // 2 x 2^16 counters of 8 bytes: exactly 1 MiB
  j["tensors"]["y3"] = a;
  EXPECT_NE(Read(j).find("tensor 'y3': the table's histograms need more than the limit of 1048576 bytes"),
            std::string::npos) << Read(j);
  SetMaxTensorBytes(saved);
}

TEST(CalibrationTableLimits, SmallTableCannotClaimGigabytesOfHistograms) {
  nlohmann::json a = Activation();
  a["stats"] = {{"num_bins", 1 << 17}, {"count", 0}, {"zeros", 0}, {"nan", 0}, {"pos_inf", 0}, {"neg_inf", 0}};
  EXPECT_NE(Read(Table(a)).find("field 'num_bins' must be in [2, 65536]"), std::string::npos) << Read(Table(a));
  // 600 tensors of 2^16 bins (300 MiB of counters from ~60 KB of text) exceed 256 MiB + 2048 bins each.
  a["stats"]["num_bins"] = 1 << 16;
  nlohmann::json j = Table(a);
  for (int i = 0; i < 600; ++i) j["tensors"]["t" + std::to_string(i)] = a;
  const std::string err = Read(j);
  EXPECT_NE(err.find("the table's histograms need more than the limit of"), std::string::npos) << err;
  EXPECT_NE(err.find("(256 MiB plus 2048 bins per tensor)"), std::string::npos) << err;
}

TEST(CalibrationTableLimits, TableFilesAreCheckedBeforeParsing) {
  const fs::path p = fs::temp_directory_path() / ("ptq_deep_table_" + std::to_string(::getpid()) + ".json");
  std::ofstream(p) << std::string(100000, '[') << std::string(100000, ']');
  TableProvenance prov;
  EXPECT_NE(ErrorOf([&] { ReadCalibrationTable(p.string(), &prov); }).find("nested deeper than 64 levels"), std::string::npos);
  std::ofstream(p, std::ios::trunc) << Table(Activation()).dump();
  EXPECT_EQ(ErrorOf([&] { ReadCalibrationTable(p.string(), &prov); }), "");
  fs::remove(p);
}

// A version 2.0 header whose length field claims 4 GiB.
std::string HugeHeaderNpy() {
  std::string b = "\x93NUMPY\x02";
  b += '\0';
  b += std::string("\xff\xff\xff\xff", 4);
  return b + "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }\n" + std::string(4, '\0');
}

TEST(NpyHeaderLimits, HeaderLengthClaimingGigabytesIsRefused) {
  const std::string bytes = HugeHeaderNpy();
  EXPECT_NE(ErrorOf([&] { NpyHeaderSize(bytes, "h.npy"); }).find("h.npy: .npy header of 4294967295 bytes is larger than the limit"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { ParseNpy(bytes, "h.npy"); }).find("truncated .npy header"), std::string::npos);
  const fs::path dir = fs::temp_directory_path() / ("ptq_npy_header_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "x.npy", std::ios::binary) << bytes;
  Graph g;
  ValueInfo x;
  x.name = "x";
  g.inputs.push_back(x);
  EXPECT_NE(ErrorOf([&] { SampleReader::Open(g, dir.string(), SampleOptions()); }).find("larger than the limit"), std::string::npos);
  fs::remove_all(dir);
}

TEST(NpyHeaderLimits, ShapeClaimingTerabytesIsAnErrorNotAnAllocation) {
  std::string h = "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000, 1000000, 2000000), }";
  h += std::string((64 - (10 + h.size() + 1) % 64) % 64, ' ') + "\n";
  std::string bytes = "\x93NUMPY\x01";
  bytes += '\0';
  bytes += static_cast<char>(h.size() & 0xff);
  bytes += static_cast<char>(h.size() >> 8);
  bytes += h + std::string(8, '\0');
  EXPECT_NE(ErrorOf([&] { ParseNpy(bytes, "tb.npy"); }).find("tb.npy: .npy header says shape [1000000, 1000000, 2000000]"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { ParseNpyHeader(bytes, "tb.npy"); }).find("is too large"), std::string::npos);
}

}  // namespace
}  // namespace ptq
