// Tests of `ptq calibrate` and `ptq merge-stats` on the digits ViT fixture: shards merge into exactly
// the table of one run, config errors name the key, and failures write nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_test_util.h"

namespace ptq {
namespace {

namespace fs = std::filesystem;
using testing::ReadText;
using testing::RunPtq;
using testing::TempDir;

// Writes a config for the ViT fixture into dir, with `calibration` extended by `extra`.
fs::path WriteConfig(const fs::path& dir, const nlohmann::json& extra = nlohmann::json::object()) {
  const std::string data = std::string(PTQ_SOURCE_DIR) + "/tests/data/digits_vit/";
  nlohmann::json c = {{"model", data + "digits_vit_opset13.onnx"},
                      {"output", (dir / "vit.int8.onnx").string()},
                      {"calibration", {{"data", data + "calib"}, {"batch_size", 8}, {"method", "percentile"}}}};
  for (const auto& item : extra.items()) c["calibration"][item.key()] = item.value();
  const fs::path path = dir / "config.json";
  std::ofstream(path) << c.dump(1);
  return path;
}

// With batch_size 1 every sample runs alone, so each tensor's values are the same bits in the shards
// as in one run (a float GEMM's rounding may depend on how many rows share a batch).
TEST(CalibrateCommand, ShardsMergeIntoExactlyTheTableOfOneRun) {
  TempDir tmp;
  const fs::path cfg = WriteConfig(tmp.path(), {{"batch_size", 1}});
  const std::string c = " --config " + cfg.string() + " --quiet";
  ASSERT_EQ(RunPtq("calibrate" + c + " --out " + (tmp.path() / "all.json").string()).exit_code, 0);
  for (int k = 0; k < 3; ++k) {
    const auto r = RunPtq("calibrate" + c + " --shard " + std::to_string(k) + "/3 --out " +
                          (tmp.path() / ("s" + std::to_string(k) + ".json")).string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  const auto m = RunPtq("merge-stats " + (tmp.path() / "s0.json").string() + " " + (tmp.path() / "s1.json").string() + " " +
                        (tmp.path() / "s2.json").string() + " -o " + (tmp.path() / "merged.json").string() +
                        " --config " + cfg.string());
  ASSERT_EQ(m.exit_code, 0) << m.output;
  const std::string all = ReadText(tmp.path() / "all.json");
  // Compare as booleans: gtest's diff of two large unequal strings takes quadratic memory.
  const bool identical = all == ReadText(tmp.path() / "merged.json");
  EXPECT_TRUE(identical) << "the merged table differs from the one-run table";
  const auto table = nlohmann::json::parse(all);
  EXPECT_EQ(table["samples"], 64);
  EXPECT_EQ(table["version"], 1);
  // A shard alone has a different histogram than the whole.
  EXPECT_FALSE(ReadText(tmp.path() / "s0.json") == all);
}

TEST(CalibrateCommand, UnknownKeyIsUsageErrorWithSuggestionAndWritesNothing) {
  TempDir tmp;
  const fs::path cfg = WriteConfig(tmp.path(), {{"methd", "entropy"}});
  const auto r = RunPtq("calibrate --config " + cfg.string() + " --out " + (tmp.path() / "t.json").string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("unknown key 'calibration.methd' (did you mean 'calibration.method'?)"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(tmp.path() / "t.json"));
}

TEST(CalibrateCommand, WrongTypeAndSetOverrideAreChecked) {
  TempDir tmp;
  const fs::path cfg = WriteConfig(tmp.path(), {{"batch_size", "eight"}});
  auto r = RunPtq("calibrate --config " + cfg.string() + " --out " + (tmp.path() / "t.json").string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("'calibration.batch_size' must be an integer"), std::string::npos) << r.output;
  // --set repairs it, and goes through the same checks.
  r = RunPtq("calibrate --config " + cfg.string() + " --set calibration.batch_size=4 --quiet --out " +
             (tmp.path() / "t.json").string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  r = RunPtq("calibrate --config " + cfg.string() + " --set calibration.batch_size=4 --set calibration.method=kl --out " +
             (tmp.path() / "u.json").string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("expected one of"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(tmp.path() / "u.json"));
}

TEST(CalibrateCommand, MissingDataIsAnInputErrorAndWritesNothing) {
  TempDir tmp;
  const fs::path cfg = WriteConfig(tmp.path(), {{"data", (tmp.path() / "nowhere").string()}});
  const auto r = RunPtq("calibrate --config " + cfg.string() + " --out " + (tmp.path() / "t.json").string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("nowhere"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(tmp.path() / "t.json"));
}

TEST(CalibrateCommand, MergingTablesOfDifferentConfigsIsRefused) {
  TempDir tmp;
  const fs::path cfg = WriteConfig(tmp.path());
  ASSERT_EQ(RunPtq("calibrate --config " + cfg.string() + " --quiet --shard 0/2 --out " + (tmp.path() / "a.json").string()).exit_code, 0);
  ASSERT_EQ(RunPtq("calibrate --config " + cfg.string() + " --quiet --shard 1/2 --set calibration.percentile=99.9 --out " +
                   (tmp.path() / "b.json").string()).exit_code, 0);
  const auto r = RunPtq("merge-stats " + (tmp.path() / "a.json").string() + " " + (tmp.path() / "b.json").string() +
                        " -o " + (tmp.path() / "m.json").string() + " --config " + cfg.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("different config"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(tmp.path() / "m.json"));
}

// Runs `ptq calibrate` for shards 0/2 and 1/2 of cfg into dir/a.json and dir/b.json.
void CalibrateTwoShards(const fs::path& cfg, const fs::path& dir) {
  for (const char* k : {"0", "1"}) {
    const auto r = RunPtq("calibrate --config " + cfg.string() + " --quiet --shard " + k + "/2 --out " +
                          (dir / (std::string(k) == "0" ? "a.json" : "b.json")).string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
}

TEST(MergeStatsCommand, RefusesTablesOfAnotherModelOrConfigAndWritesNothing) {
  TempDir tmp;
  const fs::path cfg = WriteConfig(tmp.path());
  CalibrateTwoShards(cfg, tmp.path());
  const std::string tables = (tmp.path() / "a.json").string() + " " + (tmp.path() / "b.json").string();
  const std::string out = (tmp.path() / "m.json").string();
  // The same config but the opset-17 export of the model: the shards' model_sha256 does not match.
  const std::string other = std::string(PTQ_SOURCE_DIR) + "/tests/data/digits_vit/digits_vit_opset17.onnx";
  auto r = RunPtq("merge-stats " + tables + " -o " + out + " --config " + cfg.string() + " --set model=" + other);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("a.json: this table was made for another model"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out));
  // Both shards agree with each other, but not with the config given to merge-stats.
  r = RunPtq("merge-stats " + tables + " -o " + out + " --config " + cfg.string() + " --set calibration.method=mse");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("a.json: this table was calibrated with a different config"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out));
  // The matching config merges.
  r = RunPtq("merge-stats " + tables + " -o " + out + " --config " + cfg.string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(out));
}

// The same shard twice, a missing shard, or a table of all samples would count samples twice or leave
// some out: each is an input error naming the table, and nothing is written.
TEST(MergeStatsCommand, ShardsMustCoverTheDataOnce) {
  TempDir tmp;
  const fs::path cfg = WriteConfig(tmp.path());
  CalibrateTwoShards(cfg, tmp.path());
  const std::string a = (tmp.path() / "a.json").string(), b = (tmp.path() / "b.json").string();
  const std::string out = (tmp.path() / "m.json").string();
  const auto merge = [&](const std::string& tables) {
    return RunPtq("merge-stats " + tables + " -o " + out + " --config " + cfg.string());
  };
  auto r = merge(a + " " + a);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("a.json: shard 0/2 is given twice"), std::string::npos) << r.output;
  fs::copy_file(a, tmp.path() / "a_copy.json");
  r = merge(a + " " + (tmp.path() / "a_copy.json").string() + " " + b);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("a_copy.json: shard 0/2 is given twice"), std::string::npos) << r.output;
  ASSERT_EQ(RunPtq("calibrate --config " + cfg.string() + " --quiet --shard 2/3 --out " + (tmp.path() / "c.json").string()).exit_code, 0);
  r = merge(a + " " + (tmp.path() / "c.json").string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("c.json: shard 2/3 is of another split"), std::string::npos) << r.output;
  ASSERT_EQ(RunPtq("calibrate --config " + cfg.string() + " --quiet --out " + (tmp.path() / "all.json").string()).exit_code, 0);
  r = merge(a + " " + (tmp.path() / "all.json").string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("all.json: this table covers all samples"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out));
  // Shards 0/3 and 1/3 without 2/3: the missing one is named.
  for (const char* k : {"0", "1"}) {
    ASSERT_EQ(RunPtq("calibrate --config " + cfg.string() + " --quiet --shard " + k + "/3 --out " +
                     (tmp.path() / (std::string("t") + k + ".json")).string()).exit_code, 0);
  }
  r = merge((tmp.path() / "t0.json").string() + " " + (tmp.path() / "t1.json").string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("shard(s) 2/3 missing"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out));
}

TEST(MergeStatsCommand, TableNamingAWeightTheModelLacksIsAnInputError) {
  TempDir tmp;
  const fs::path cfg = WriteConfig(tmp.path());
  CalibrateTwoShards(cfg, tmp.path());
  // Both shards renamed alike (so that they still merge with each other): the model has no such weight.
  std::string renamed;
  for (const char* f : {"a.json", "b.json"}) {
    auto t = nlohmann::json::parse(ReadText(tmp.path() / f));
    for (auto& [name, e] : t["tensors"].items()) {
      if (e["role"] == "weight" && renamed.empty()) renamed = name;
    }
    ASSERT_FALSE(renamed.empty());
    t["tensors"]["no/such/weight"] = t["tensors"][renamed];
    t["tensors"].erase(renamed);
    std::ofstream(tmp.path() / f) << t.dump();
  }
  const std::string out = (tmp.path() / "m.json").string();
  const auto r = RunPtq("merge-stats " + (tmp.path() / "a.json").string() + " " + (tmp.path() / "b.json").string() +
                        " -o " + out + " --config " + cfg.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("names weight 'no/such/weight', which is not a float constant of"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace
}  // namespace ptq
