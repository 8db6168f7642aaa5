// A small command-line parser: positional arguments and --flag value / --flag=value options.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

namespace ptq {

class Args {
 public:
  // Parses argv[first..]. `flags` are options taking a value; `switches` take none. Unknown options
  // are usage errors naming the option.
  Args(int argc, char** argv, int first, const std::set<std::string>& flags, const std::set<std::string>& switches);

  const std::vector<std::string>& positional() const { return positional_; }
  bool Has(const std::string& name) const { return values_.count(name) || switches_.count(name); }
  std::string Get(const std::string& name, const std::string& def = "") const;
  std::string Require(const std::string& name) const;  // usage error when absent
  std::vector<std::string> GetAll(const std::string& name) const;  // repeated flags
  int GetInt(const std::string& name, int def) const;
  double GetDouble(const std::string& name, double def) const;

 private:
  std::vector<std::string> positional_;
  std::multimap<std::string, std::string> values_;
  std::set<std::string> switches_;
};

}  // namespace ptq
