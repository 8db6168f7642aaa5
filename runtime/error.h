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

// What a kInput error is about: the model, or the data fed to it (the Python module raises ModelError
// or DataError; the exit code is 2 for both).
enum class InputSubject { kModel, kData };

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message, InputSubject subject = InputSubject::kModel)
      : std::runtime_error(message), kind_(kind), subject_(subject) {}
  ErrorKind kind() const { return kind_; }
  InputSubject subject() const { return subject_; }

 private:
  ErrorKind kind_;
  InputSubject subject_;
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

// Bad input data (samples, feeds, labels): exit code 2.
template <class... Args>
[[noreturn]] void ThrowDataError(const Args&... args) {
  throw Error(ErrorKind::kInput, StrCat(args...), InputSubject::kData);
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

// The same for input data: a data error (InputSubject::kData).
#define PTQ_ENFORCE_DATA(cond, ...)            \
  do {                                         \
    if (!(cond)) ::ptq::ThrowDataError(__VA_ARGS__); \
  } while (0)
