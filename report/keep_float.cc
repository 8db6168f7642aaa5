// NodesToKeepFloat: the producer from the rewrite's record, else the quantized readers.
#include "report/keep_float.h"

#include <set>

namespace ptq {

std::vector<std::string> NodesToKeepFloat(const Graph& g, const std::map<std::string, std::string>& quantized_by,
                                          const std::string& tensor) {
  const auto by = quantized_by.find(tensor);
  if (by != quantized_by.end()) return {by->second};
  static const std::set<std::string> kOps = {"MatMul", "Gemm", "Conv"};
  std::vector<std::string> out;
  for (const Node& n : g.nodes) {
    if (!kOps.count(n.op_type)) continue;
    for (const auto& i : n.inputs) {
      if (i == tensor) {
        out.push_back(n.name);
        break;
      }
    }
  }
  return out;
}

}  // namespace ptq
