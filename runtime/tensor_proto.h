// Conversion between onnx::TensorProto and Tensor: typed fields, raw data, external data, packed int4.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/tensor.h"

namespace onnx {
class TensorProto;
}

namespace ptq {

// Decodes a TensorProto. `base_dir` is the model's folder, against which external data locations are
// resolved; an empty base_dir refuses external data. Every external location must stay inside
// base_dir (no absolute paths, no "..", no symbolic link leading out). Declared sizes are checked
// against the data present before anything is allocated. `what` names the tensor in errors
// (e.g. "initializer 'W' in model.onnx"). `budget`, when given, holds the bytes the caller may still
// allocate (GraphFromModel: what is left of MaxModelBytes()); the tensor's size is subtracted once its
// data has been checked, and exceeding it is an error instead of an allocation.
Tensor TensorFromProto(const onnx::TensorProto& proto, const std::string& base_dir, const std::string& what,
                       int64_t* budget = nullptr);

// Encodes a tensor as raw_data (int4/uint4 packed two per byte, first element in the low nibble).
void TensorToProto(const Tensor& tensor, const std::string& name, onnx::TensorProto* proto);

// Reads a serialized TensorProto file (ONNX test_data_set_*/input_N.pb). The tensor's name is
// stored in *name when given.
Tensor ReadTensorProtoFile(const std::string& path, std::string* name = nullptr);

}  // namespace ptq
