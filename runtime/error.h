// The one error type of ptq: an exception carrying what went wrong, where, and which exit code it maps to.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace ptq {

// Exit codes of the ptq command (README.md documents them).
enum class ErrorKind {
  kUsage = 1,     // bad command line or config
  kInput = 2,     // bad model or data supplied by the user
  kGate = 3,      // accuracy gate failed
  kInternal = 4,  // a bug in ptq
};

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  ErrorKind kind() const { return kind_; }

 private:
  ErrorKind kind_;
};

namespace detail {
inline void Append(std::ostringstream&) {}
template <class T, class... Rest>
void Append(std::ostringstream& os, const T& first, const Rest&... rest) {
  os << first;
  Append(os, rest...);
}
}  // namespace detail

// Concatenates its arguments with operator<<.
template <class... Args>
std::string StrCat(const Args&... args) {
  std::ostringstream os;
  detail::Append(os, args...);
  return os.str();
}

// Bad model or data: exit code 2.
template <class... Args>
[[noreturn]] void ThrowInputError(const Args&... args) {
  throw Error(ErrorKind::kInput, StrCat(args...));
}

// Bad command line or config: exit code 1.
template <class... Args>
[[noreturn]] void ThrowUsageError(const Args&... args) {
  throw Error(ErrorKind::kUsage, StrCat(args...));
}

}  // namespace ptq

// Checks a condition on user-supplied input; on failure throws an input error with the message.
#define PTQ_ENFORCE(cond, ...)                  \
  do {                                          \
    if (!(cond)) ::ptq::ThrowInputError(__VA_ARGS__); \
  } while (0)
