// NodesToUnquantize: the producer of a tensor's quantized form and its MatMul/Gemm/Conv readers.
#include "report/keep_float.h"

#include <set>

namespace ptq {

namespace {

// The float model's MatMul/Gemm/Conv nodes that read `tensor`, in model order.
std::vector<std::string> WeightedReaders(const Graph& g, const std::string& tensor) {
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

}  // namespace

std::vector<std::string> NodesToUnquantize(const Graph& g, const std::map<std::string, std::string>& quantized_by,
                                           const std::string& tensor) {
  std::vector<std::string> out;
  const auto by = quantized_by.find(tensor);
  if (by != quantized_by.end()) out.push_back(by->second);
  for (const std::string& r : WeightedReaders(g, tensor)) {
    if (out.empty() || r != out[0]) out.push_back(r);
  }
  return out;
}

}  // namespace ptq
