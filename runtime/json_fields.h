// Checked reading of JSON config sections: unknown keys name the key path and suggest the nearest valid
// key; wrong types name the expected type. All errors are usage errors (exit code 1).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ptq {

// Edit distance between two strings (for suggestions).
size_t EditDistance(const std::string& a, const std::string& b);

// The candidate nearest to `key` (by edit distance, at most half of key's length away), or "".
std::string NearestKey(const std::string& key, const std::vector<std::string>& candidates);

// A JSON object at `path` ("" for the top level, "calibration", "quantization.activations", ...).
class JsonSection {
 public:
  // Throws a usage error when `value` is not an object, or has a key not in `allowed`:
  // "unknown key 'calibration.methd' (did you mean 'calibration.method'?)".
  JsonSection(const nlohmann::json& value, std::string path, const std::vector<std::string>& allowed);

  bool Has(const std::string& key) const;
  std::string KeyPath(const std::string& key) const;  // "calibration.method"

  std::string GetString(const std::string& key, const std::string& def) const;
  // A string that must be one of `choices`; otherwise the error lists them.
  std::string GetChoice(const std::string& key, const std::string& def, const std::vector<std::string>& choices) const;
  int64_t GetInt(const std::string& key, int64_t def, int64_t min_value) const;
  double GetNumber(const std::string& key, double def) const;
  bool GetBool(const std::string& key, bool def) const;
  std::vector<std::string> GetStringList(const std::string& key) const;
  const nlohmann::json& Get(const std::string& key) const;  // REQUIRES: Has(key)

 private:
  [[noreturn]] void WrongType(const std::string& key, const char* expected) const;
  const nlohmann::json& value_;
  std::string path_;
};

// "string", "number", "object", ... for error messages.
std::string JsonTypeName(const nlohmann::json& v);

}  // namespace ptq
