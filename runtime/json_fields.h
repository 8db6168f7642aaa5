// Checked reading of JSON config sections: unknown keys name the key path and suggest the nearest valid
// key; wrong types name the expected type. All errors are usage errors (exit code 1).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/error.h"

namespace ptq {

// Limits on JSON text read from files (configs, calibration tables). They are checked by a linear scan
// before parsing: nlohmann::json's dump, copy and comparison recurse once per nesting level, so a
// 100,000-deep nesting would overflow the stack, and every value costs at least 16 bytes of memory.
struct JsonLimits {
  int64_t max_bytes = int64_t{1} << 30;   // of the text
  int max_depth = 64;                      // nested arrays and objects
  int64_t max_values = int64_t{1} << 24;   // values, keys included (an upper bound is counted)
};

// Parses JSON text (no comments). Throws an Error of `kind` naming `where` when the text exceeds a
// limit (which limit, and where) or is not valid JSON (nlohmann's message with its line and column),
// including numbers out of range; never a nlohmann exception.
nlohmann::json ParseJsonText(const std::string& text, const std::string& where, ErrorKind kind,
                             const JsonLimits& limits = JsonLimits());

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

// Checked reading of fields of JSON data files (calibration tables). Errors are input errors naming
// `where` and the field; no nlohmann exception and no out-of-range conversion escapes.
const nlohmann::json& JsonField(const nlohmann::json& object, const char* key, const std::string& where);
std::string JsonStringField(const nlohmann::json& object, const char* key, const std::string& where);
double JsonNumberField(const nlohmann::json& object, const char* key, const std::string& where);
// An integer (not a float) in [lo, hi]; `key` names the field it came from.
int64_t JsonInteger(const nlohmann::json& value, const char* key, const std::string& where, int64_t lo, int64_t hi);
std::vector<int64_t> JsonIntegerList(const nlohmann::json& object, const char* key, const std::string& where, int64_t lo,
                                     int64_t hi);
std::vector<float> JsonFloatList(const nlohmann::json& object, const char* key, const std::string& where);

}  // namespace ptq
