// `ptq quantize` killed (SIGKILL) or interrupted (SIGINT) at many points: each output path holds
// nothing, the previous complete file or the complete new one, never a partial file. SIGINT exits 130,
// removes its temporary files and leaves the outputs all previous or all new. (After SIGKILL leftover
// temporary files ".<name>.ptq-tmp-<pid>-<n>" are acceptable; they are never at an output path.)
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/file_util.h"
#include "runtime/model_io.h"
#include "runtime/npy.h"
#include "runtime/sha256.h"
#include "tests/cli/cli_test_util.h"

namespace ptq {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using testing::ReadText;
using testing::TempDir;

const std::string kVit = std::string(PTQ_SOURCE_DIR) + "/tests/data/digits_vit/";
const std::vector<std::string> kOutputs = {"vit.int8.onnx", "vit.int8.calib.json", "vit.int8.report.json",
                                           "vit.int8.report.html"};
const std::string kModel = "vit.int8.onnx";

// When to signal ptq: `delay` after the event.
struct Trigger {
  enum Event { kStart, kStageLine, kTemporaryCreated, kModified, kRenamed } event;
  int n;  // the stage line "[n/4]", or the n-th temporary file created in / write to / rename into out/
  milliseconds delay;
  int signo;
  bool previous;  // out/ holds complete files of an earlier run before this one

  std::string Describe() const {
    static const char* kEvents[] = {"start", "stage line", "temporary file", "write", "rename"};
    return std::string(signo == SIGKILL ? "SIGKILL" : "SIGINT") + " " + std::to_string(delay.count()) +
           " ms after " + kEvents[event] + (event == kStart ? "" : " " + std::to_string(n)) +
           (previous ? " over previous outputs" : "");
  }
};

struct Outcome {
  int status = 0;
  bool sent = false;
  std::string log;  // stderr
  int new_files = 0, previous_files = 0, partial = 0, missing = 0, temporaries = 0;  // out/ afterwards
};

// Runs ptq with `args`, watching its stderr and `watch_dir`, and sends the trigger's signal. Unless the
// trigger is a time after the start, stdout is a full pipe until then: ptq prints its summary there
// only after writing the outputs, so it cannot exit before the signal arrives.
// An event that has not happened `patience` after the start is a failure (and the signal is sent then).
Outcome RunAndSignal(const std::vector<std::string>& args, const fs::path& watch_dir, const Trigger& t,
                     milliseconds patience) {
  Outcome o;
  const int notify = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  EXPECT_GE(notify, 0);
  EXPECT_GE(::inotify_add_watch(notify, watch_dir.c_str(), IN_CREATE | IN_MODIFY | IN_MOVED_TO), 0);
  int err[2], out[2];
  EXPECT_EQ(::pipe2(err, O_CLOEXEC), 0);
  EXPECT_EQ(::pipe2(out, O_CLOEXEC), 0);
  const int capacity = ::fcntl(out[0], F_SETPIPE_SZ, 4096);
  EXPECT_GT(capacity, 0);
  ::fcntl(out[1], F_SETFL, O_NONBLOCK);
  for (const std::string page(4096, '\n'); ::write(out[1], page.data(), page.size()) > 0;) {
  }
  while (::write(out[1], "\n", 1) > 0) {
  }
  ::fcntl(out[1], F_SETFL, 0);
  std::vector<char*> argv = {const_cast<char*>(PTQ_BINARY)};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const auto start = Clock::now();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(err[1], 2);
    ::dup2(out[1], 1);
    ::signal(SIGINT, SIG_DFL);  // whatever the test runner ignores or blocks
    ::signal(SIGTERM, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::execv(PTQ_BINARY, argv.data());
    ::_exit(127);
  }
  ::close(err[1]);
  ::close(out[1]);
  std::optional<Clock::time_point> fire_at;
  if (t.event == Trigger::kStart) fire_at = start + t.delay;
  int created = 0, modified = 0, renamed = 0;
  const auto deadline = start + std::chrono::seconds(60);
  for (bool eof = false; !eof;) {
    const auto now = Clock::now();
    if (now > deadline) {
      ADD_FAILURE() << "ptq did not finish in 60 s";
      ::kill(pid, SIGKILL);
    }
    int timeout_ms = 10;
    if (fire_at && !o.sent) {
      timeout_ms = static_cast<int>(std::max<int64_t>(0, std::chrono::ceil<milliseconds>(*fire_at - now).count()));
    }
    const bool drain = o.sent || t.event == Trigger::kStart;
    pollfd fds[3] = {{err[0], POLLIN, 0}, {notify, POLLIN, 0}, {drain ? out[0] : -1, POLLIN, 0}};
    ::poll(fds, 3, timeout_ms);
    char buf[4096] __attribute__((aligned(alignof(inotify_event))));
    if (fds[0].revents != 0) {
      const ssize_t n = ::read(err[0], buf, sizeof buf);
      if (n > 0) o.log.append(buf, static_cast<size_t>(n));
      if (n == 0) eof = true;
    }
    if (fds[2].revents != 0) {
      [[maybe_unused]] const ssize_t n = ::read(out[0], buf, sizeof buf);  // ptq's summary is not checked
    }
    for (ssize_t n; (n = ::read(notify, buf, sizeof buf)) > 0;) {
      for (char* p = buf; p < buf + n;) {
        const auto* e = reinterpret_cast<const inotify_event*>(p);
        const bool temporary = e->len > 0 && std::strstr(e->name, kTemporaryFileMarker) != nullptr;
        if ((e->mask & IN_CREATE) && temporary) ++created;
        if (e->mask & IN_MODIFY) ++modified;  // any file: a writer that is not atomic is caught too
        if ((e->mask & IN_MOVED_TO) && !temporary) ++renamed;
        p += sizeof(inotify_event) + e->len;
      }
    }
    if (!fire_at) {
      const std::string stage_line = "[" + std::to_string(t.n) + "/4]";
      const bool happened = (t.event == Trigger::kStageLine && o.log.find(stage_line) != std::string::npos) ||
                            (t.event == Trigger::kTemporaryCreated && created >= t.n) ||
                            (t.event == Trigger::kModified && modified >= t.n) ||
                            (t.event == Trigger::kRenamed && renamed >= t.n);
      if (happened) fire_at = Clock::now() + t.delay;
    }
    if (!fire_at && Clock::now() > start + patience) {
      ADD_FAILURE() << "no " << t.Describe() << " in " << patience.count() << " ms";
      fire_at = Clock::now();
    }
    if (fire_at && !o.sent && Clock::now() >= *fire_at) {
      ::kill(pid, t.signo);  // a process that has exited is a zombie until waitpid: never another process
      o.sent = true;
    }
  }
  ::waitpid(pid, &o.status, 0);
  ::close(err[0]);
  ::close(out[0]);
  ::close(notify);
  return o;
}

bool Complete(const fs::path& p) {
  const std::string bytes = ReadText(p);
  const std::string ext = p.extension().string();
  if (ext == ".onnx") {
    onnx::ModelProto m;
    try {
      LoadModelProto(p.string(), &m);
      return true;
    } catch (const std::exception&) {
      return false;
    }
  }
  if (ext == ".json") return nlohmann::json::accept(bytes);
  if (ext == ".data") {  // "<stem>.<16 hex digits of its SHA-256>.data"
    const std::string stem = p.stem().string();
    return Sha256Hex(bytes).substr(0, 16) == stem.substr(stem.rfind('.') + 1);
  }
  const size_t end = bytes.find_last_not_of(" \n");
  return end != std::string::npos && bytes.compare(0, 9, "<!DOCTYPE") == 0 && end >= 6 &&
         bytes.compare(end - 6, 7, "</html>") == 0;
}

// Runs `ptq quantize` on the digits ViT with 16 samples, outputs in out/; the first run makes the
// reference outputs (ptq's outputs are deterministic for a fixed thread count). With `external`, the
// model's tensors go to a data file beside it, one more output: it is renamed into place before the
// model, so a model is never there without its data, and it has no previous version (its name is its
// content's hash).
class CrashSafeOutputs : public ::testing::Test {
 protected:
  virtual bool external() const { return false; }

  void SetUp() override {
    const fs::path data = tmp_.path() / "data";
    fs::create_directories(data);
    const Tensor all = ReadNpy(kVit + "calib/pixel_values.npy");
    Shape shape = all.shape();
    shape[0] = 16;
    Tensor some(all.dtype(), shape);
    std::memcpy(some.raw(), all.raw(), some.nbytes());
    WriteNpy((data / "pixel_values.npy").string(), some);
    const nlohmann::json c = {{"model", kVit + "digits_vit_opset13.onnx"},
                              {"output", (out() / "vit.int8.onnx").string()},
                              {"output_external_data", external() ? "always" : "auto"},
                              {"calibration", {{"data", data.string()}, {"batch_size", 16}, {"method", "percentile"}}}};
    std::ofstream(tmp_.path() / "c.json") << c.dump(1);
    args_ = {"quantize", "--config", (tmp_.path() / "c.json").string(), "--threads", "2"};
    fs::create_directories(out());
    const auto t0 = Clock::now();
    const Outcome o =
        RunAndSignal(args_, out(), {Trigger::kStart, 0, milliseconds(1000000), SIGKILL, false}, milliseconds(0));
    run_time_ = std::chrono::duration_cast<milliseconds>(Clock::now() - t0);
    ASSERT_TRUE(WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0) << o.log;
    outputs_ = kOutputs;
    for (const auto& e : fs::directory_iterator(out())) {
      if (e.path().extension() == ".data") data_file_ = e.path().filename().string();
    }
    ASSERT_EQ(data_file_.empty(), !external());
    if (external()) outputs_.push_back(data_file_);
    for (const auto& f : outputs_) {
      ASSERT_TRUE(Complete(out() / f)) << f;
      new_[f] = ReadText(out() / f);
    }
    previous_ = {{"vit.int8.onnx", ReadText(kVit + "digits_vit_opset13.onnx")},
                 {"vit.int8.calib.json", "{\"previous\": true}\n"},
                 {"vit.int8.report.json", "{\"previous\": true}\n"},
                 {"vit.int8.report.html", "<!DOCTYPE html>\n<html><body>previous</body></html>\n"}};
  }

  fs::path out() const { return tmp_.path() / "out"; }

  // Runs with `t` from a fresh out/ (RunIn), checks what is left there and prints one line about it.
  Outcome Check(const Trigger& t) {
    SCOPED_TRACE(t.Describe());
    Outcome o = RunIn(t);
    std::cout << t.Describe() << ": "
              << (WIFSIGNALED(o.status) ? "killed" : "exit " + std::to_string(WEXITSTATUS(o.status))) << "; "
              << o.new_files << " new, " << o.previous_files << " previous, " << o.partial << " partial, "
              << o.missing << " missing, "
              << o.temporaries << " temporary files\n";
    return o;
  }

  Outcome RunIn(const Trigger& t) {
    fs::remove_all(out());
    fs::create_directories(out());
    if (t.previous) {
      for (const auto& [f, bytes] : previous_) std::ofstream(out() / f, std::ios::binary) << bytes;
    }
    Outcome o = RunAndSignal(args_, out(), t, 2 * run_time_ + milliseconds(2000));
    const bool killed = WIFSIGNALED(o.status) && WTERMSIG(o.status) == SIGKILL;
    const bool finished = WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0;
    const bool interrupted = WIFEXITED(o.status) && WEXITSTATUS(o.status) == 130;
    EXPECT_TRUE(t.signo == SIGKILL ? killed || finished : interrupted || finished) << o.status << "\n" << o.log;
    for (const auto& f : outputs_) {
      const fs::path p = out() / f;
      if (!fs::exists(p)) {
        EXPECT_FALSE(t.previous && f != data_file_) << f << ": the previous file was removed";
        ++o.missing;
        continue;
      }
      const std::string bytes = ReadText(p);
      const auto previous = previous_.find(f);  // the data file has none
      if (t.previous && previous != previous_.end() && bytes == previous->second) {
        ++o.previous_files;
      } else if (bytes == new_[f]) {
        ++o.new_files;
      } else {
        ADD_FAILURE() << f << " (" << bytes.size() << " bytes) is neither the previous file nor the complete new one ("
                      << new_[f].size() << " bytes)";
        ++o.partial;
      }
      EXPECT_TRUE(Complete(p)) << f;
    }
    const int all = static_cast<int>(outputs_.size());
    if (finished) {
      EXPECT_EQ(o.new_files, all);
    }
    if (t.signo == SIGINT) {  // an interrupt waits for a commit in progress: all previous or all new
      EXPECT_TRUE(o.new_files == 0 || o.new_files == all) << o.new_files << " new";
    }
    if (external() && fs::exists(out() / kModel) && ReadText(out() / kModel) == new_[kModel]) {
      EXPECT_TRUE(fs::exists(out() / data_file_)) << "the new model is there without its data file";
    }
    for (const auto& e : fs::directory_iterator(out())) {
      const std::string name = e.path().filename().string();
      if (std::find(outputs_.begin(), outputs_.end(), name) != outputs_.end()) continue;
      EXPECT_TRUE(name[0] == '.' && name.find(kTemporaryFileMarker) != std::string::npos) << "unexpected file " << name;
      EXPECT_TRUE(killed) << "temporary file left behind: " << name;
      ++o.temporaries;
    }
    return o;
  }

  TempDir tmp_;
  std::vector<std::string> args_;
  milliseconds run_time_{0};
  std::vector<std::string> outputs_;  // kOutputs and the data file
  std::string data_file_;             // with external(): its name, made of its hash
  std::map<std::string, std::string> new_, previous_;
};

class CrashSafeExternalOutputs : public CrashSafeOutputs {
 protected:
  bool external() const override { return true; }
};

TEST_F(CrashSafeOutputs, SigkillAtAnyPointLeavesNothingOrACompleteFile) {
  std::vector<Trigger> runs;
  bool previous = false;
  std::vector<int64_t> delays;
  for (int64_t ms = 0; ms < run_time_.count(); ms = ms == 0 ? 5 : ms * 2) delays.push_back(ms);
  for (int percent : {50, 75, 90, 95, 98, 100, 102}) delays.push_back(run_time_.count() * percent / 100);
  for (int64_t ms : delays) runs.push_back({Trigger::kStart, 0, milliseconds(ms), SIGKILL, previous = !previous});
  for (int n = 1; n <= 4; ++n) runs.push_back({Trigger::kStageLine, n, milliseconds(0), SIGKILL, n % 2 == 0});
  for (int n = 1; n <= 4; ++n) runs.push_back({Trigger::kTemporaryCreated, n, milliseconds(0), SIGKILL, true});
  runs.push_back({Trigger::kTemporaryCreated, 1, milliseconds(0), SIGKILL, false});
  for (int n = 1; n <= 4; ++n) runs.push_back({Trigger::kModified, n, milliseconds(0), SIGKILL, n % 2 == 1});
  for (int n = 1; n <= 3; ++n) runs.push_back({Trigger::kRenamed, n, milliseconds(0), SIGKILL, true});
  runs.push_back({Trigger::kRenamed, 2, milliseconds(0), SIGKILL, false});
  for (const Trigger& t : runs) {
    const Outcome o = Check(t);
    // Only a time after the start can come after ptq has finished (its stdout is not read until then).
    if (t.event != Trigger::kStart) {
      EXPECT_TRUE(WIFSIGNALED(o.status)) << t.Describe() << "\n" << o.log;
    }
  }
}

TEST_F(CrashSafeOutputs, SigintExits130AndRemovesItsTemporaryFiles) {
  std::vector<Trigger> runs;
  for (int n = 1; n <= 4; ++n) runs.push_back({Trigger::kStageLine, n, milliseconds(0), SIGINT, n % 2 == 1});
  runs.push_back({Trigger::kStageLine, 1, milliseconds(30), SIGINT, false});
  for (int n = 1; n <= 4; ++n) runs.push_back({Trigger::kTemporaryCreated, n, milliseconds(0), SIGINT, true});
  runs.push_back({Trigger::kTemporaryCreated, 2, milliseconds(0), SIGINT, false});
  runs.push_back({Trigger::kRenamed, 1, milliseconds(0), SIGINT, true});
  for (const Trigger& t : runs) {
    const Outcome o = Check(t);
    const bool interrupted = WIFEXITED(o.status) && WEXITSTATUS(o.status) == 130;
    EXPECT_TRUE(interrupted) << t.Describe() << "\n" << o.log;
    EXPECT_NE(o.log.find("ptq: interrupted (SIGINT)"), std::string::npos) << o.log;
  }
}

// The model with its data file: killed at each rename (table, data file, model, reports), at temporary
// files (the data file's is made during the rewrite) and at stage lines; interrupted at stage lines and
// renames.
TEST_F(CrashSafeExternalOutputs, TheDataFileIsCompleteAndInPlaceBeforeTheModel) {
  std::vector<Trigger> runs;
  for (int n = 1; n <= 5; ++n) runs.push_back({Trigger::kRenamed, n, milliseconds(0), SIGKILL, n % 2 == 0});
  for (int n = 1; n <= 3; ++n) runs.push_back({Trigger::kTemporaryCreated, n, milliseconds(0), SIGKILL, n % 2 == 1});
  for (int n = 2; n <= 4; ++n) runs.push_back({Trigger::kStageLine, n, milliseconds(0), SIGKILL, true});
  for (int n = 3; n <= 4; ++n) runs.push_back({Trigger::kStageLine, n, milliseconds(0), SIGINT, n == 3});
  for (int n = 1; n <= 2; ++n) runs.push_back({Trigger::kRenamed, n, milliseconds(0), SIGINT, true});
  for (const Trigger& t : runs) {
    const Outcome o = Check(t);
    EXPECT_TRUE(WIFSIGNALED(o.status) || (WIFEXITED(o.status) && WEXITSTATUS(o.status) == 130)) << t.Describe() << "\n" << o.log;
  }
}

}  // namespace
}  // namespace ptq
