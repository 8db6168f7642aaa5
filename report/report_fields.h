// Reading the report JSON without throwing: missing keys, wrong types and "inf" SQNR strings handled.
#pragma once

#include <cctype>
#include <limits>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace ptq {
namespace report_fields {

using json = nlohmann::json;

// j[key] when j is an object holding it, else null.
inline const json& At(const json& j, const char* key) {
  static const json null_value;
  if (!j.is_object()) return null_value;
  auto it = j.find(key);
  return it == j.end() ? null_value : *it;
}

// The elements of v when it is an array, else none.
inline const json& Items(const json& v) {
  static const json empty = json::array();
  return v.is_array() ? v : empty;
}

inline std::optional<double> Num(const json& v) {
  if (v.is_number()) return v.get<double>();
  return std::nullopt;
}

// An SQNR: a number, or "inf" / "-inf" (any case; "infinity" too) for error-free or signal-free tensors.
inline std::optional<double> Sqnr(const json& v) {
  if (v.is_number()) return v.get<double>();
  if (!v.is_string()) return std::nullopt;
  std::string s = v.get<std::string>();
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const double inf = std::numeric_limits<double>::infinity();
  if (s == "inf" || s == "+inf" || s == "infinity") return inf;
  if (s == "-inf" || s == "-infinity") return -inf;
  return std::nullopt;
}

}  // namespace report_fields
}  // namespace ptq
