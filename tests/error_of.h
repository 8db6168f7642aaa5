// ErrorOf for tests: the message of the ptq::Error a call throws (checking its kind), or "" when it throws none.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "runtime/error.h"

namespace ptq {
namespace testing {

inline std::string ErrorOf(const std::function<void()>& f, ErrorKind kind = ErrorKind::kInput) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    return e.what();
  }
  return "";
}

}  // namespace testing
}  // namespace ptq
