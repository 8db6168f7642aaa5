// Atomic writes: a recognisable temporary file beside the destination, renamed into place, removed on
// failure; AtomicFileSet commits several files together; RemoveTemporaryFilesBeforeExit cleans up.
#include "runtime/file_util.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "runtime/error.h"

namespace ptq {
namespace {

namespace fs = std::filesystem;

class FileUtil : public ::testing::Test {
 protected:
  FileUtil() : dir_(fs::temp_directory_path() / ("ptq_file_util_" + std::to_string(::getpid()))) {
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  ~FileUtil() override { fs::remove_all(dir_); }

  std::vector<std::string> Names() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }
  std::string Read(const std::string& name) const { return ReadFileToString((dir_ / name).string(), 1 << 20); }

  fs::path dir_;
};

TEST_F(FileUtil, WriteFileAtomicReplacesTheFileAndLeavesNoTemporaryFile) {
  WriteFileAtomic((dir_ / "a.json").string(), "first");
  WriteFileAtomic((dir_ / "a.json").string(), "second, longer");
  EXPECT_EQ(Read("a.json"), "second, longer");
  EXPECT_EQ(Names(), std::vector<std::string>{"a.json"});
  WriteFileAtomic((dir_ / "new" / "folder" / "b").string(), "");  // missing folders are made; empty file
  EXPECT_EQ(ReadFileToString((dir_ / "new" / "folder" / "b").string(), 10), "");
}

TEST_F(FileUtil, TemporaryFilesAreNamedForTheDestinationAndRemovedOnFailure) {
  fs::create_directories(dir_ / "taken");  // a folder where the file should go: the rename cannot succeed
  EXPECT_THROW(WriteFileAtomic((dir_ / "taken").string(), "x"), Error);
  EXPECT_EQ(Names(), std::vector<std::string>{"taken"});

  AtomicFileSet set;
  set.Add((dir_ / "m.onnx").string(), "model");
  const std::vector<std::string> names = Names();
  ASSERT_EQ(names.size(), 2u);
  const std::string prefix = ".m.onnx" + std::string(kTemporaryFileMarker) + std::to_string(::getpid()) + "-";
  EXPECT_EQ(names[0].rfind(prefix, 0), 0u) << names[0];
  EXPECT_EQ(ReadFileToString((dir_ / names[0]).string(), 100), "model");  // complete before the rename
  EXPECT_FALSE(fs::exists(dir_ / "m.onnx"));

  const std::string long_name(250, 'n');  // the temporary name stays within NAME_MAX
  WriteFileAtomic((dir_ / long_name).string(), "long");
  EXPECT_EQ(Read(long_name), "long");
}

TEST_F(FileUtil, AnUncommittedSetRemovesItsTemporaryFiles) {
  std::ofstream(dir_ / "a") << "previous";
  {
    AtomicFileSet set;
    set.Add((dir_ / "a").string(), "new a");
    set.Add((dir_ / "b").string(), "new b");
    EXPECT_EQ(Names().size(), 3u);
  }
  EXPECT_EQ(Names(), std::vector<std::string>{"a"});
  EXPECT_EQ(Read("a"), "previous");
}

TEST_F(FileUtil, CommitRenamesEveryFileOrNoneWhenADestinationIsAFolder) {
  std::ofstream(dir_ / "a") << "previous";
  {
    AtomicFileSet set;
    set.Add((dir_ / "a").string(), "new a");
    set.Add((dir_ / "b").string(), "new b");
    set.Commit();
  }
  EXPECT_EQ(Names(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(Read("a"), "new a");
  EXPECT_EQ(Read("b"), "new b");

  fs::create_directories(dir_ / "c");
  {
    AtomicFileSet set;
    set.Add((dir_ / "a").string(), "newer a");
    set.Add((dir_ / "c").string(), "c");
    EXPECT_THROW(set.Commit(), Error);
  }
  EXPECT_EQ(Read("a"), "new a");
  EXPECT_EQ(Names(), (std::vector<std::string>{"a", "b", "c"}));
}

TEST_F(FileUtil, RemoveTemporaryFilesBeforeExitRemovesUnfinishedWrites) {
  std::ofstream(dir_ / "a") << "previous";
  EXPECT_EXIT(
      {
        AtomicFileSet set;
        set.Add((dir_ / "a").string(), "new a");
        set.Add((dir_ / "b").string(), "new b");
        RemoveTemporaryFilesBeforeExit();
        ::_exit(130);
      },
      ::testing::ExitedWithCode(130), "");
  EXPECT_EQ(Names(), std::vector<std::string>{"a"});
  EXPECT_EQ(Read("a"), "previous");
}

}  // namespace
}  // namespace ptq
