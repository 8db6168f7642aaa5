// File reading with limits and atomic writes.
#include "runtime/file_util.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <tuple>
#include <utility>
#include <vector>

#include "runtime/error.h"

namespace ptq {

int64_t FileSize(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) ThrowInputError(path, ": cannot open: ", std::strerror(errno));
  if (!S_ISREG(st.st_mode)) ThrowInputError(path, ": not a regular file");
  return static_cast<int64_t>(st.st_size);
}

std::string ReadFileToString(const std::string& path, int64_t max_bytes) {
  const int64_t size = FileSize(path);
  if (size > max_bytes) ThrowInputError(path, ": file of ", size, " bytes is larger than the limit of ", max_bytes);
  std::ifstream in(path, std::ios::binary);
  if (!in) ThrowInputError(path, ": cannot open for reading");
  std::string bytes(static_cast<size_t>(size), '\0');
  in.read(bytes.data(), size);
  if (in.gcount() != size) ThrowInputError(path, ": read ", in.gcount(), " of ", size, " bytes");
  return bytes;
}

namespace {

namespace fs = std::filesystem;

// The temporary files this process is writing, for RemoveTemporaryFilesBeforeExit. Never destroyed,
// so an interrupt that arrives while exit() runs static destructors still finds it.
struct TemporaryFiles {
  std::mutex mu;
  std::vector<std::string> paths;  // guarded by mu
};

TemporaryFiles& Temporaries() {
  static TemporaryFiles* t = new TemporaryFiles;
  return *t;
}

// REQUIRES: Temporaries().mu held.
void Unregister(const std::string& tmp) {
  auto& paths = Temporaries().paths;
  paths.erase(std::remove(paths.begin(), paths.end(), tmp), paths.end());
}

void Discard(const std::string& tmp) {
  std::lock_guard<std::mutex> lock(Temporaries().mu);
  ::unlink(tmp.c_str());
  Unregister(tmp);
}

fs::path FolderOf(const std::string& path) {
  const fs::path target(path);
  return target.has_parent_path() ? target.parent_path() : fs::path(".");
}

// Creates ".<name>.ptq-tmp-<pid>-<n>" beside `path` and registers it (both under the lock, so an
// interrupt either sees it registered or finds it not yet created). Returns its name and descriptor.
// `make(name)` creates the file: returns a descriptor (>= 0), or -1 with errno set.
template <class Make>
std::pair<std::string, int> CreateTemporary(const std::string& path, Make make) {
  static std::atomic<uint64_t> counter{0};
  const fs::path dir = FolderOf(path);
  std::error_code ec;
  fs::create_directories(dir, ec);  // an output folder that does not exist yet is made (errors surface below)
  std::string name = fs::path(path).filename().string();
  if (name.size() > 200) name.resize(200);  // stays under NAME_MAX with the suffix
  const std::string prefix = "." + name + kTemporaryFileMarker + std::to_string(::getpid()) + "-";
  TemporaryFiles& t = Temporaries();
  std::lock_guard<std::mutex> lock(t.mu);
  for (int attempt = 0;; ++attempt) {
    const std::string tmp = (dir / (prefix + std::to_string(counter++))).string();
    const int fd = make(tmp);
    if (fd >= 0) {
      t.paths.push_back(tmp);
      return {tmp, fd};
    }
    if (errno != EEXIST || attempt >= 100) {
      ThrowInputError(path, ": cannot create a temporary file in ", dir.string(), ": ", std::strerror(errno));
    }
  }
}

// Makes a rename in `dir` durable (best effort: some file systems cannot fsync a folder).
void SyncFolder(const fs::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

TemporaryFile::TemporaryFile(const std::string& destination) : destination_(destination) {
  std::tie(path_, fd_) = CreateTemporary(destination, [](const std::string& tmp) {
    return ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  });
}

std::optional<TemporaryFile> TemporaryFile::Link(const std::string& target, const std::string& destination) {
  TemporaryFile f;
  f.destination_ = destination;
  try {
    f.path_ = CreateTemporary(destination, [&](const std::string& tmp) { return ::link(target.c_str(), tmp.c_str()); }).first;
  } catch (const Error&) {
    return std::nullopt;
  }
  return f;
}

TemporaryFile::TemporaryFile(TemporaryFile&& other) noexcept
    : path_(std::move(other.path_)), destination_(std::move(other.destination_)), fd_(other.fd_), size_(other.size_) {
  other.path_.clear();
  other.fd_ = -1;
}

TemporaryFile::~TemporaryFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!path_.empty()) Discard(path_);
}

void TemporaryFile::Fail(const std::string& what, int err) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  Discard(path_);
  path_.clear();
  ThrowInputError(destination_, ": ", what, ": ", std::strerror(err));
}

void TemporaryFile::Write(const void* data, size_t n) {
  if (fd_ < 0) ThrowInputError(destination_, ": write after the file was finished or failed");
  const char* p = static_cast<const char*>(data);
  for (size_t done = 0; done < n;) {
    const ssize_t k = ::write(fd_, p + done, n - done);
    if (k < 0) {
      if (errno == EINTR) continue;
      Fail("write failed", errno);
    }
    done += static_cast<size_t>(k);
  }
  size_ += static_cast<int64_t>(n);
}

void TemporaryFile::Finish() {
  if (fd_ < 0) return;
  const bool synced = ::fsync(fd_) == 0;
  const int err = errno;
  const bool closed = ::close(fd_) == 0;
  fd_ = -1;
  if (!synced || !closed) Fail("flushing to disk failed", synced ? errno : err);
}

AtomicFileSet::~AtomicFileSet() {
  if (pending_.empty()) return;
  std::lock_guard<std::mutex> lock(Temporaries().mu);
  for (const auto& p : pending_) {
    ::unlink(p.first.c_str());
    Unregister(p.first);
  }
}

void AtomicFileSet::Add(const std::string& path, const std::string& bytes) {
  TemporaryFile file(path);
  file.Write(bytes.data(), bytes.size());
  Add(std::move(file));
}

void AtomicFileSet::Add(TemporaryFile file) {
  file.Finish();
  pending_.emplace_back(file.path_, file.destination_);
  file.path_.clear();  // this set removes or renames it now
}

void AtomicFileSet::Commit() {
  // A folder in the way would fail its rename after earlier ones succeeded: refuse before any.
  for (const auto& p : pending_) {
    std::error_code ec;
    if (fs::is_directory(p.second, ec)) ThrowInputError(p.second, ": is a folder; cannot write a file there");
  }
  {
    std::lock_guard<std::mutex> lock(Temporaries().mu);
    for (size_t i = 0; i < pending_.size(); ++i) {
      if (::rename(pending_[i].first.c_str(), pending_[i].second.c_str()) != 0) {
        const int err = errno;
        const std::string dest = pending_[i].second;
        pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(i));  // in place already
        ThrowInputError(dest, ": cannot rename the temporary file into place: ", std::strerror(err));
      }
      Unregister(pending_[i].first);
    }
  }
  std::vector<fs::path> synced;
  for (const auto& p : pending_) {
    const fs::path dir = FolderOf(p.second);
    if (std::find(synced.begin(), synced.end(), dir) != synced.end()) continue;
    SyncFolder(dir);
    synced.push_back(dir);
  }
  pending_.clear();
}

void WriteFileAtomic(const std::string& path, const std::string& bytes) {
  AtomicFileSet file;
  file.Add(path, bytes);
  file.Commit();
}

NewFoldersOf::NewFoldersOf(const std::string& path) {
  std::error_code ec;
  for (fs::path dir = FolderOf(path); !dir.empty() && !fs::exists(dir, ec); dir = dir.parent_path()) {
    folders_.push_back(dir.string());
    if (!dir.has_parent_path() || dir.parent_path() == dir) break;
  }
}

NewFoldersOf::~NewFoldersOf() {
  std::error_code ec;
  for (const std::string& dir : folders_) {
    if (!fs::remove(dir, ec)) break;  // not empty (or already gone): its parents stay too
  }
}

void RemoveTemporaryFilesBeforeExit() {
  TemporaryFiles& t = Temporaries();
  t.mu.lock();  // never unlocked: no temporary file is created or renamed after this
  for (const std::string& tmp : t.paths) ::unlink(tmp.c_str());
  t.paths.clear();
}

std::string SanitizeFileName(const std::string& name) {
  if (name == ".") return "_";
  if (name == "..") return "__";
  std::string out = name;
  for (char& c : out) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (u < 32 || std::strchr("/\\:*?\"<>|", c) != nullptr) c = '_';
  }
  return out.empty() ? "_" : out;
}

std::string ResolveConfigPath(const std::string& dir, const std::string& path) {
  if (path.empty()) return path;
  const std::filesystem::path p(path);
  return (p.is_absolute() ? p : std::filesystem::path(dir) / p).lexically_normal().string();
}

}  // namespace ptq
