// A node's attributes as plain values, so kernels need no protobuf headers.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/tensor.h"

namespace ptq {

struct Graph;

struct AttributeValue {
  // kGraph holds one subgraph (If's branches, Loop's body); a GRAPHS attribute is kOther.
  enum class Kind { kInt, kFloat, kString, kInts, kFloats, kStrings, kTensor, kGraph, kOther };
  Kind kind = Kind::kOther;
  int64_t i = 0;
  float f = 0.0f;
  std::string s;
  std::vector<int64_t> ints;
  std::vector<float> floats;
  std::vector<std::string> strings;
  std::shared_ptr<Tensor> tensor;
  std::shared_ptr<const Graph> graph;
};

class Attributes {
 public:
  void Set(const std::string& name, AttributeValue value) { values_[name] = std::move(value); }
  bool Has(const std::string& name) const { return values_.count(name) != 0; }
  const std::map<std::string, AttributeValue>& all() const { return values_; }

  // Getters return the default when the attribute is absent and throw an input error naming the
  // attribute when it is present with another kind.
  int64_t GetInt(const std::string& name, int64_t def) const;
  float GetFloat(const std::string& name, float def) const;
  std::string GetString(const std::string& name, const std::string& def) const;
  std::vector<int64_t> GetInts(const std::string& name, const std::vector<int64_t>& def = {}) const;
  std::vector<float> GetFloats(const std::string& name, const std::vector<float>& def = {}) const;
  std::vector<std::string> GetStrings(const std::string& name, const std::vector<std::string>& def = {}) const;
  const Tensor* GetTensor(const std::string& name) const;  // nullptr when absent
  std::shared_ptr<const Graph> GetGraph(const std::string& name) const;  // nullptr when absent

  // Throw an input error naming the attribute when it is absent.
  int64_t RequireInt(const std::string& name) const;
  std::vector<int64_t> RequireInts(const std::string& name) const;

 private:
  const AttributeValue* Find(const std::string& name, AttributeValue::Kind kind) const;
  std::map<std::string, AttributeValue> values_;
};

}  // namespace ptq
