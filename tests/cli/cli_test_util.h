// Runs the ptq binary in tests and captures its exit code and output; temporary folders.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace ptq {
namespace testing {

struct CommandResult {
  int exit_code;
  std::string output;  // stdout and stderr
};

inline CommandResult RunPtq(const std::string& args) {
  namespace fs = std::filesystem;
  static int counter = 0;
  const fs::path log = fs::temp_directory_path() /
                       ("ptq_cli_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + ".log");
  const std::string cmd = std::string(PTQ_BINARY) + " " + args + " >" + log.string() + " 2>&1";
  const int status = std::system(cmd.c_str());
  std::ifstream in(log);
  std::string out((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  fs::remove(log);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

inline std::string ReadText(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

class TempDir {
 public:
  TempDir() {
    static int counter = 0;
    path_ = std::filesystem::temp_directory_path() /
            ("ptq_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace testing
}  // namespace ptq
