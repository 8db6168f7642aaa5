// Replays the inputs that once crashed, leaked, hung or tripped a sanitizer in a fuzz target
// (tests/data/fuzz_regressions/<target>/) through that target's entry point: each must now be read or
// refused with a ptq::Error. Run under ASan/UBSan in CI, this is the fuzzers' regression suite.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "runtime/tensor.h"
#include "tests/fuzz/fuzz_entries.h"

namespace ptq {
namespace {

namespace fs = std::filesystem;

const fs::path kInputs = fs::path(PTQ_SOURCE_DIR) / "tests" / "data" / "fuzz_regressions";

class FuzzRegressions : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { fuzz::SetFuzzLimits(); }
  void TearDown() override {
    SetMaxTensorBytes(tensor_bytes_);
    SetMaxModelBytes(model_bytes_);
  }
  const int64_t tensor_bytes_ = MaxTensorBytes(), model_bytes_ = MaxModelBytes();
};

TEST_P(FuzzRegressions, EveryInputIsReadOrRefused) {
  const fuzz::Target* target = fuzz::FindTarget(GetParam());
  ASSERT_NE(target, nullptr);
  const fs::path dir = kInputs / GetParam();
  std::vector<fs::path> files;
  if (fs::is_directory(dir)) {
    for (const auto& e : fs::directory_iterator(dir)) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    SCOPED_TRACE(f.string());
    std::ifstream in(f, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    const auto start = std::chrono::steady_clock::now();
    EXPECT_NO_THROW(target->run(bytes.str()));
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));  // the fuzzers' -timeout
  }
}

std::vector<std::string> TargetNames() {
  std::vector<std::string> names;
  for (const fuzz::Target& t : fuzz::Targets()) names.push_back(t.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Targets, FuzzRegressions, ::testing::ValuesIn(TargetNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// Every folder of inputs belongs to a target (a misspelt folder would silently be skipped).
TEST(FuzzRegressionInputs, EveryFolderNamesATarget) {
  for (const auto& e : fs::directory_iterator(kInputs)) {
    if (!e.is_directory()) continue;  // README.md
    EXPECT_NE(fuzz::FindTarget(e.path().filename().string()), nullptr) << e.path();
  }
}

}  // namespace
}  // namespace ptq
