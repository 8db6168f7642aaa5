// Checked JSON section reading with nearest-key suggestions.
#include "runtime/json_fields.h"

#include <algorithm>

#include "runtime/error.h"

namespace ptq {

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
  ThrowUsageError("'", KeyPath(key), "' must be ", expected, ", got ", JsonTypeName(value_.at(key)), " ",
                  value_.at(key).dump());
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

}  // namespace ptq
