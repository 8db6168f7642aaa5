// Typed access to node attributes with errors that name the attribute.
#include "runtime/attributes.h"

namespace ptq {

const AttributeValue* Attributes::Find(const std::string& name, AttributeValue::Kind kind) const {
  auto it = values_.find(name);
  if (it == values_.end()) return nullptr;
  if (it->second.kind != kind) ThrowInputError("attribute '", name, "' has the wrong type");
  return &it->second;
}

int64_t Attributes::GetInt(const std::string& name, int64_t def) const {
  const AttributeValue* v = Find(name, AttributeValue::Kind::kInt);
  return v ? v->i : def;
}

float Attributes::GetFloat(const std::string& name, float def) const {
  const AttributeValue* v = Find(name, AttributeValue::Kind::kFloat);
  return v ? v->f : def;
}

std::string Attributes::GetString(const std::string& name, const std::string& def) const {
  const AttributeValue* v = Find(name, AttributeValue::Kind::kString);
  return v ? v->s : def;
}

std::vector<int64_t> Attributes::GetInts(const std::string& name, const std::vector<int64_t>& def) const {
  const AttributeValue* v = Find(name, AttributeValue::Kind::kInts);
  return v ? v->ints : def;
}

std::vector<float> Attributes::GetFloats(const std::string& name, const std::vector<float>& def) const {
  const AttributeValue* v = Find(name, AttributeValue::Kind::kFloats);
  return v ? v->floats : def;
}

std::vector<std::string> Attributes::GetStrings(const std::string& name, const std::vector<std::string>& def) const {
  const AttributeValue* v = Find(name, AttributeValue::Kind::kStrings);
  return v ? v->strings : def;
}

const Tensor* Attributes::GetTensor(const std::string& name) const {
  const AttributeValue* v = Find(name, AttributeValue::Kind::kTensor);
  return v ? v->tensor.get() : nullptr;
}

std::shared_ptr<const Graph> Attributes::GetGraph(const std::string& name) const {
  const AttributeValue* v = Find(name, AttributeValue::Kind::kGraph);
  return v ? v->graph : nullptr;
}

int64_t Attributes::RequireInt(const std::string& name) const {
  const AttributeValue* v = Find(name, AttributeValue::Kind::kInt);
  if (!v) ThrowInputError("required attribute '", name, "' is missing");
  return v->i;
}

std::vector<int64_t> Attributes::RequireInts(const std::string& name) const {
  const AttributeValue* v = Find(name, AttributeValue::Kind::kInts);
  if (!v) ThrowInputError("required attribute '", name, "' is missing");
  return v->ints;
}

}  // namespace ptq
