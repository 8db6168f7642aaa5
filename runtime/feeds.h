// Model inputs from a folder: <input_name>.npy files, or an ONNX test_data_set_* folder of input_N.pb.
#pragma once

#include <map>
#include <string>

#include "runtime/graph.h"
#include "runtime/tensor.h"

namespace ptq {

// Reads one value per graph input from `dir`:
//  - `<input_name>.npy` (the name passed through SanitizeFileName), each the whole tensor; or
//  - `input_N.pb` TensorProto files, matched by their name field, else by position among the
//    graph's inputs.
// Errors name the folder and the input; files that match no input are errors too.
std::map<std::string, Tensor> ReadFeedsFolder(const Graph& graph, const std::string& dir);

}  // namespace ptq
