// Command-line parsing with usage errors that name the option.
#include "cli/args.h"

#include "runtime/error.h"

namespace ptq {

Args::Args(int argc, char** argv, int first, const std::set<std::string>& flags, const std::set<std::string>& switches) {
  for (int i = first; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--", 0) != 0 || a == "--") {
      positional_.push_back(a);
      continue;
    }
    std::string name = a.substr(2), value;
    const size_t eq = name.find('=');
    const bool inline_value = eq != std::string::npos;
    if (inline_value) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    if (switches.count(name)) {
      if (inline_value) ThrowUsageError("option --", name, " takes no value");
      switches_.insert(name);
    } else if (flags.count(name)) {
      if (!inline_value) {
        if (i + 1 >= argc) ThrowUsageError("option --", name, " needs a value");
        value = argv[++i];
      }
      values_.emplace(name, value);
    } else {
      ThrowUsageError("unknown option --", name, " (see --help)");
    }
  }
}

std::string Args::Get(const std::string& name, const std::string& def) const {
  auto it = values_.find(name);
  return it == values_.end() ? def : it->second;
}

std::string Args::Require(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) ThrowUsageError("missing required option --", name);
  return it->second;
}

std::vector<std::string> Args::GetAll(const std::string& name) const {
  std::vector<std::string> out;
  auto range = values_.equal_range(name);
  for (auto it = range.first; it != range.second; ++it) out.push_back(it->second);
  return out;
}

int Args::GetInt(const std::string& name, int def) const {
  if (!values_.count(name)) return def;
  const std::string v = Get(name);
  try {
    size_t used = 0;
    const int x = std::stoi(v, &used);
    if (used == v.size()) return x;
  } catch (const std::exception&) {
  }
  ThrowUsageError("option --", name, " expects an integer, got '", v, "'");
}

double Args::GetDouble(const std::string& name, double def) const {
  if (!values_.count(name)) return def;
  const std::string v = Get(name);
  try {
    size_t used = 0;
    const double x = std::stod(v, &used);
    if (used == v.size()) return x;
  } catch (const std::exception&) {
  }
  ThrowUsageError("option --", name, " expects a number, got '", v, "'");
}

}  // namespace ptq
