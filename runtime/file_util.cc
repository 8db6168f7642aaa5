// File reading with limits and atomic writes.
#include "runtime/file_util.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

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

void WriteFileAtomic(const std::string& path, const std::string& bytes) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::error_code ec;
  fs::create_directories(dir, ec);  // an output folder that does not exist yet is made (errors surface below)
  std::string tmpl = (dir / ("." + target.filename().string() + ".tmp.XXXXXX")).string();
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0) ThrowInputError(path, ": cannot create a temporary file in ", dir.string(), ": ", std::strerror(errno));
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      ::unlink(tmpl.c_str());
      ThrowInputError(path, ": write failed: ", std::strerror(err));
    }
    done += static_cast<size_t>(n);
  }
  ::fchmod(fd, 0644);
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmpl.c_str());
    ThrowInputError(path, ": flushing to disk failed: ", std::strerror(err));
  }
  if (::rename(tmpl.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmpl.c_str());
    ThrowInputError(path, ": cannot rename the temporary file into place: ", std::strerror(err));
  }
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

}  // namespace ptq
