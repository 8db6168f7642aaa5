// Reading files with size limits and writing them atomically (temporary file, flush, rename).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ptq {

// Reads a whole file. Throws an input error naming the path when it cannot be opened or is larger
// than max_bytes.
std::string ReadFileToString(const std::string& path, int64_t max_bytes);

// Size of a regular file in bytes; throws an input error naming the path when it is not one.
int64_t FileSize(const std::string& path);

// Temporary files are ".<name>.ptq-tmp-<pid>-<n>" in the destination's folder (<name> cut to 200
// bytes), so a rename never crosses file systems and a leftover (after SIGKILL) is easy to recognise.
inline constexpr const char* kTemporaryFileMarker = ".ptq-tmp-";

// Writes `bytes` to a temporary file in the destination's folder, fsyncs it, renames it over `path`
// and fsyncs the folder: a reader sees either the previous file or the complete new one, never a
// partial one. The temporary file is removed on failure. Creates missing parent folders.
void WriteFileAtomic(const std::string& path, const std::string& bytes);

// A file written piece by piece into a temporary file in the folder of `destination` (named as above and
// registered, so that an interrupt removes it; missing parent folders are created). The destructor
// removes the temporary file unless an AtomicFileSet has taken it.
class TemporaryFile {
 public:
  explicit TemporaryFile(const std::string& destination);
  // A temporary hard link to the existing file `target`, named and removed like a temporary file (not
  // to be written); none when the system refuses it (`target` on another file system, no right).
  static std::optional<TemporaryFile> Link(const std::string& target, const std::string& destination);
  TemporaryFile(TemporaryFile&& other) noexcept;
  TemporaryFile& operator=(TemporaryFile&&) = delete;
  TemporaryFile(const TemporaryFile&) = delete;
  ~TemporaryFile();

  // Appends `n` bytes. Throws an input error naming the destination (and removes the file) on failure.
  void Write(const void* data, size_t n);
  // Flushes to disk (fsync) and closes; nothing can be written afterwards. Throws as Write does.
  void Finish();

  const std::string& path() const { return path_; }  // the temporary file (readable while written)
  const std::string& destination() const { return destination_; }
  void set_destination(const std::string& destination) { destination_ = destination; }  // same folder
  int64_t size() const { return size_; }

 private:
  friend class AtomicFileSet;
  TemporaryFile() = default;
  void Fail(const std::string& what, int err);
  std::string path_, destination_;
  int fd_ = -1;
  int64_t size_ = 0;
};

// Files that appear together. Add writes each one completely to its (fsynced) temporary file; Commit
// renames them all in the order added, with RemoveTemporaryFilesBeforeExit held off until it is done,
// so an interrupt leaves either every previous file or every new one. (A SIGKILL in the microseconds
// between two renames can still leave some new and some previous files, each complete.)
// Uncommitted temporary files are removed by the destructor.
class AtomicFileSet {
 public:
  AtomicFileSet() = default;
  AtomicFileSet(const AtomicFileSet&) = delete;
  AtomicFileSet& operator=(const AtomicFileSet&) = delete;
  ~AtomicFileSet();

  void Add(const std::string& path, const std::string& bytes);  // creates missing parent folders
  // A file written piece by piece: finished (flushed to disk) now, renamed to its destination at Commit.
  void Add(TemporaryFile file);
  void Commit();

 private:
  std::vector<std::pair<std::string, std::string>> pending_;  // (temporary file, destination)
};

// For a command that writes temporary files beside outputs that are only renamed into place once it has
// succeeded: the folders on the way to `path` that do not exist yet are removed by the destructor when
// they are empty then, unless Keep was called, so that a failure leaves no empty output folder behind.
class NewFoldersOf {
 public:
  explicit NewFoldersOf(const std::string& path);
  NewFoldersOf(const NewFoldersOf&) = delete;
  NewFoldersOf& operator=(const NewFoldersOf&) = delete;
  ~NewFoldersOf();
  void Keep() { folders_.clear(); }

 private:
  std::vector<std::string> folders_;  // deepest first
};

// For an interrupt handler running on an ordinary thread (not inside a signal handler): waits for a
// Commit in progress, removes every temporary file this process is writing and blocks all further
// atomic writes for the life of the process. Call _exit next.
void RemoveTemporaryFilesBeforeExit();

// Replaces characters that cannot be in a file name on common systems ('/', '\\', ':', '*', '?', '"',
// '<', '>', '|', control characters) with '_'. "." and ".." become "_" and "__".
std::string SanitizeFileName(const std::string& name);

// A path from a config: relative ones are taken against `dir` (the config's folder); the result is
// normalised ("a/./b/../c" -> "a/c"), so that messages print it plainly. "" stays "".
std::string ResolveConfigPath(const std::string& dir, const std::string& path);

}  // namespace ptq
