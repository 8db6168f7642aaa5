// MatchTwins: QuantizeLinear inputs, quantizer name suffixes and equal names, in that order.
#include "report/twin_match.h"

#include <cctype>
#include <set>
#include <vector>

namespace ptq {
namespace {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() > suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// `name` without a trailing "_<digits>" (ptq's NewName makes "x/quantized_2" when "x/quantized" is taken).
std::string WithoutCounter(const std::string& name) {
  size_t i = name.size();
  while (i > 0 && std::isdigit(static_cast<unsigned char>(name[i - 1]))) --i;
  if (i == name.size() || i < 2 || name[i - 1] != '_') return name;
  return name.substr(0, i - 1);
}

// The float tensor `name` is named after, by a quantizer's suffix; "" if none.
std::string BySuffix(const std::string& name, const std::set<std::string>& float_tensors) {
  static const std::vector<std::string> kSuffixes = {"/quantized", "_QuantizeLinear_Output", "_quantized"};
  for (const std::string& n : {name, WithoutCounter(name)}) {
    for (const std::string& s : kSuffixes) {
      if (!EndsWith(n, s)) continue;
      const std::string base = n.substr(0, n.size() - s.size());
      if (float_tensors.count(base)) return base;
    }
  }
  return "";
}

}  // namespace

std::map<std::string, std::string> MatchTwins(const Graph& float_model, const Graph& int8_model) {
  std::set<std::string> float_tensors;
  for (const ValueInfo& v : float_model.inputs) float_tensors.insert(v.name);
  for (const Node& n : float_model.nodes) {
    for (const std::string& o : n.outputs) {
      if (!o.empty()) float_tensors.insert(o);
    }
  }
  std::map<std::string, std::string> twins;
  for (const Node& n : int8_model.nodes) {
    const bool quantize = n.op_type == "QuantizeLinear" && n.domain.empty() && !n.inputs.empty();
    for (const std::string& o : n.outputs) {
      if (o.empty()) continue;
      std::string twin;
      if (quantize && float_tensors.count(n.inputs[0])) twin = n.inputs[0];
      if (twin.empty()) twin = BySuffix(o, float_tensors);
      if (twin.empty() && float_tensors.count(o)) twin = o;
      if (!twin.empty()) twins[o] = twin;
    }
  }
  return twins;
}

}  // namespace ptq
