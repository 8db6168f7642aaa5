// Which ops only move values (one table): the calibration's histogram aliases, the rewrite's int8
// pass-through and parameter sharing, and the attention matcher all ask it.
#pragma once

#include <string>

namespace ptq {

// How an op's output 0 relates to its input 0's values.
enum class ValueFlow {
  kNone,        // computes new values
  kRearranges,  // every input value, reordered or reshaped (Reshape, Transpose, Identity, ...)
  kSelects,     // a subset of the input values, or the maximum of some (Slice, Gather, MaxPool)
  kJoins,       // the values of several inputs (Concat)
  kSplits,      // the values spread over several outputs (Split)
  kConverts,    // the same values in another element type (Cast)
};

ValueFlow ValueFlowOf(const std::string& op_type);

// Output 0 holds exactly input 0's values, rearranged: a histogram of one is a histogram of the other.
bool RearrangesValues(const std::string& op_type);
// Output values are input values (rearranged, selected, joined or split): a quantized tensor keeps its
// scale and zero point through the op.
bool MovesValues(const std::string& op_type);
// Rearranges or selects the values of input 0 (the other inputs being shape-like) and, by ONNX's type
// constraints, accepts int8 and uint8 data: the op can run on the quantized tensor itself.
bool MovesInt8Values(const std::string& op_type);
// Changes only the shape, order or element type of the values (what may sit between attention's
// Softmax and its P·V MatMul).
bool KeepsValuesApartFromType(const std::string& op_type);

}  // namespace ptq
