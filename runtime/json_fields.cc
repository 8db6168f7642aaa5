// Checked JSON section reading with nearest-key suggestions.
#include "runtime/json_fields.h"

#include <algorithm>
#include <cstdint>

#include "runtime/error.h"

namespace ptq {

namespace {

// Checks depth and value count without parsing: brackets and commas outside strings.
void ScanJsonLimits(const std::string& text, const std::string& where, ErrorKind kind, const JsonLimits& limits) {
  auto fail = [&](const std::string& what) { throw Error(kind, StrCat(where, ": ", what)); };
  if (static_cast<int64_t>(text.size()) > limits.max_bytes) {
    fail(StrCat("JSON text of ", text.size(), " bytes is larger than the limit of ", limits.max_bytes));
  }
  int depth = 0;
  int64_t values = 1, line = 1;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') ++line;
    if (in_string) {
      if (c == '\\') ++i;  // the escaped character cannot end the string
      else if (c == '"') in_string = false;
      continue;
    }
    switch (c) {
      case '"': in_string = true; break;
      case '[':
      case '{':
        if (++depth > limits.max_depth) {
          fail(StrCat("JSON nested deeper than ", limits.max_depth, " levels (line ", line, ")"));
        }
        ++values;
        break;
      case ']':
      case '}': --depth; break;
      case ',':
      case ':': ++values; break;
      default: break;
    }
    if (values > limits.max_values) fail(StrCat("JSON with more than ", limits.max_values, " values (line ", line, ")"));
  }
}

}  // namespace

nlohmann::json ParseJsonText(const std::string& text, const std::string& where, ErrorKind kind, const JsonLimits& limits) {
  ScanJsonLimits(text, where, kind, limits);
  try {
    return nlohmann::json::parse(text, nullptr, true, /*ignore_comments=*/false);
  } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for numbers like 1e999
    throw Error(kind, StrCat(where, ": not valid JSON: ", e.what()));
  }
}

size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string NearestKey(const std::string& key, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_d = std::max<size_t>(2, key.size() / 2) + 1;
  for (const std::string& c : candidates) {
    const size_t d = EditDistance(key, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

std::string JsonTypeName(const nlohmann::json& v) {
  if (v.is_boolean()) return "boolean";
  if (v.is_number_integer()) return "integer";
  if (v.is_number()) return "number";
  return v.type_name();
}

JsonSection::JsonSection(const nlohmann::json& value, std::string path, const std::vector<std::string>& allowed)
    : value_(value), path_(std::move(path)) {
  if (!value_.is_object()) {
    ThrowUsageError("'", path_.empty() ? "config" : path_, "' must be an object, got ", JsonTypeName(value_));
  }
  for (const auto& item : value_.items()) {
    if (std::find(allowed.begin(), allowed.end(), item.key()) != allowed.end()) continue;
    const std::string near = NearestKey(item.key(), allowed);
    std::string valid;
    for (const std::string& a : allowed) valid += (valid.empty() ? "" : ", ") + a;
    ThrowUsageError("unknown key '", KeyPath(item.key()), "'",
                    near.empty() ? " (valid keys here: " + valid + ")" : " (did you mean '" + KeyPath(near) + "'?)");
  }
}

bool JsonSection::Has(const std::string& key) const { return value_.contains(key) && !value_.at(key).is_null(); }

std::string JsonSection::KeyPath(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

const nlohmann::json& JsonSection::Get(const std::string& key) const { return value_.at(key); }

void JsonSection::WrongType(const std::string& key, const char* expected) const {
  std::string shown = value_.at(key).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (shown.size() > 80) shown = shown.substr(0, 80) + "...";  // a huge value is not repeated in full
  ThrowUsageError("'", KeyPath(key), "' must be ", expected, ", got ", JsonTypeName(value_.at(key)), " ", shown);
}

std::string JsonSection::GetString(const std::string& key, const std::string& def) const {
  if (!Has(key)) return def;
  if (!Get(key).is_string()) WrongType(key, "a string");
  return Get(key).get<std::string>();
}

std::string JsonSection::GetChoice(const std::string& key, const std::string& def, const std::vector<std::string>& choices) const {
  const std::string v = GetString(key, def);
  if (std::find(choices.begin(), choices.end(), v) != choices.end()) return v;
  std::string list;
  for (const std::string& c : choices) list += (list.empty() ? "" : ", ") + ("'" + c + "'");
  const std::string near = NearestKey(v, choices);
  ThrowUsageError("'", KeyPath(key), "' is '", v, "'; expected one of ", list,
                  near.empty() ? "" : " (did you mean '" + near + "'?)");
}

int64_t JsonSection::GetInt(const std::string& key, int64_t def, int64_t min_value) const {
  if (!Has(key)) return def;
  const auto& v = Get(key);
  if (!v.is_number_integer()) WrongType(key, "an integer");
  if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
    ThrowUsageError("'", KeyPath(key), "' is too large: ", v.dump());
  }
  const int64_t x = v.get<int64_t>();
  if (x < min_value) ThrowUsageError("'", KeyPath(key), "' must be at least ", min_value, ", got ", x);
  return x;
}

double JsonSection::GetNumber(const std::string& key, double def) const {
  if (!Has(key)) return def;
  if (!Get(key).is_number()) WrongType(key, "a number");
  return Get(key).get<double>();
}

bool JsonSection::GetBool(const std::string& key, bool def) const {
  if (!Has(key)) return def;
  if (!Get(key).is_boolean()) WrongType(key, "true or false");
  return Get(key).get<bool>();
}

std::vector<std::string> JsonSection::GetStringList(const std::string& key) const {
  std::vector<std::string> out;
  if (!Has(key)) return out;
  if (!Get(key).is_array()) WrongType(key, "a list of strings");
  for (const auto& item : Get(key)) {
    if (!item.is_string()) WrongType(key, "a list of strings");
    out.push_back(item.get<std::string>());
  }
  return out;
}

const nlohmann::json& JsonField(const nlohmann::json& j, const char* key, const std::string& where) {
  if (!j.is_object()) ThrowInputError(where, ": expected an object, got ", JsonTypeName(j));
  const auto it = j.find(key);
  if (it == j.end()) ThrowInputError(where, ": missing field '", key, "'");
  return *it;
}

std::string JsonStringField(const nlohmann::json& j, const char* key, const std::string& where) {
  const nlohmann::json& v = JsonField(j, key, where);
  if (!v.is_string()) ThrowInputError(where, ": field '", key, "' must be a string, got ", JsonTypeName(v));
  return v.get<std::string>();
}

double JsonNumberField(const nlohmann::json& j, const char* key, const std::string& where) {
  const nlohmann::json& v = JsonField(j, key, where);
  if (!v.is_number()) ThrowInputError(where, ": field '", key, "' must be a number, got ", JsonTypeName(v));
  return v.get<double>();
}

int64_t JsonInteger(const nlohmann::json& v, const char* key, const std::string& where, int64_t lo, int64_t hi) {
  auto fail = [&] { ThrowInputError(where, ": field '", key, "' must hold integers in [", lo, ", ", hi, "]"); };
  if (!v.is_number_integer()) fail();
  if (v.is_number_unsigned() && (hi < 0 || v.get<uint64_t>() > static_cast<uint64_t>(hi))) fail();
  const int64_t x = v.get<int64_t>();
  if (x < lo || x > hi) fail();
  return x;
}

std::vector<int64_t> JsonIntegerList(const nlohmann::json& j, const char* key, const std::string& where, int64_t lo,
                                     int64_t hi) {
  const nlohmann::json& v = JsonField(j, key, where);
  if (!v.is_array()) ThrowInputError(where, ": field '", key, "' must be a list of integers, got ", JsonTypeName(v));
  std::vector<int64_t> out;
  for (const auto& x : v) out.push_back(JsonInteger(x, key, where, lo, hi));
  return out;
}

std::vector<float> JsonFloatList(const nlohmann::json& j, const char* key, const std::string& where) {
  const nlohmann::json& v = JsonField(j, key, where);
  if (!v.is_array()) ThrowInputError(where, ": field '", key, "' must be a list of numbers, got ", JsonTypeName(v));
  std::vector<float> out;
  for (const auto& x : v) {
    if (!x.is_number()) ThrowInputError(where, ": field '", key, "' must hold numbers, got ", JsonTypeName(x));
    out.push_back(static_cast<float>(x.get<double>()));
  }
  return out;
}

}  // namespace ptq
