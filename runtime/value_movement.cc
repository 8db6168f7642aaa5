// The value-movement table of the ONNX ops that only move values.
#include "runtime/value_movement.h"

#include <map>

namespace ptq {
namespace {

struct Movement {
  ValueFlow flow;
  bool int8_data;  // ONNX's type constraints let the data input be int8/uint8
};

const std::map<std::string, Movement>& Table() {
  static const std::map<std::string, Movement> kTable = {
      {"Identity", {ValueFlow::kRearranges, true}},
      {"Reshape", {ValueFlow::kRearranges, true}},
      {"Flatten", {ValueFlow::kRearranges, true}},
      {"Squeeze", {ValueFlow::kRearranges, true}},
      {"Unsqueeze", {ValueFlow::kRearranges, true}},
      {"Transpose", {ValueFlow::kRearranges, true}},
      {"Dropout", {ValueFlow::kRearranges, false}},  // inference: the identity; float types only
      {"Slice", {ValueFlow::kSelects, true}},
      {"Gather", {ValueFlow::kSelects, true}},
      {"MaxPool", {ValueFlow::kSelects, true}},  // int8/uint8 since opset 12
      {"Concat", {ValueFlow::kJoins, true}},
      {"Split", {ValueFlow::kSplits, true}},
      {"Cast", {ValueFlow::kConverts, false}},
  };
  return kTable;
}

}  // namespace

ValueFlow ValueFlowOf(const std::string& op_type) {
  const auto it = Table().find(op_type);
  return it == Table().end() ? ValueFlow::kNone : it->second.flow;
}

bool RearrangesValues(const std::string& op_type) { return ValueFlowOf(op_type) == ValueFlow::kRearranges; }

bool MovesValues(const std::string& op_type) {
  const ValueFlow f = ValueFlowOf(op_type);
  return f == ValueFlow::kRearranges || f == ValueFlow::kSelects || f == ValueFlow::kJoins || f == ValueFlow::kSplits;
}

bool MovesInt8Values(const std::string& op_type) {
  const auto it = Table().find(op_type);
  if (it == Table().end() || !it->second.int8_data) return false;
  return it->second.flow == ValueFlow::kRearranges || it->second.flow == ValueFlow::kSelects;
}

bool KeepsValuesApartFromType(const std::string& op_type) {
  const ValueFlow f = ValueFlowOf(op_type);
  return f == ValueFlow::kRearranges || f == ValueFlow::kConverts;
}

}  // namespace ptq
