// Conversion between onnx::TensorProto and Tensor: typed fields, raw data, external data, packed int4.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/tensor.h"

namespace onnx {
class TensorProto;
}

namespace ptq {

// How external data is read: copied into memory, or mapped read-only (runtime/mapped_file.h; the tensor
// must then never be written, as kernels never write their inputs).
enum class ExternalRead { kCopy, kMap };

// Decodes a TensorProto. `base_dir` is the model's folder, against which external data locations are
// resolved; an empty base_dir refuses external data. Every external location must stay inside
// base_dir (no absolute paths, no "..", no symbolic link leading out). Declared sizes are checked
// against the data present before anything is allocated. With ExternalRead::kMap, external data is
// mapped rather than copied, unless it is 4-bit, its offset is not a multiple of the element size, or it
// ends within 64 bytes of the file's last page. `what` names the tensor in errors (e.g. "initializer 'W'
// in model.onnx"). `budget`, when given, holds the bytes the caller may still allocate (GraphFromModel:
// what is left of MaxModelBytes()); the size of each tensor that is copied (not mapped) is subtracted
// once its data has been checked, and exceeding it is an error instead of an allocation.
Tensor TensorFromProto(const onnx::TensorProto& proto, const std::string& base_dir, const std::string& what,
                       int64_t* budget = nullptr, ExternalRead read = ExternalRead::kCopy);

// The rule for external data: `location` must be a relative path whose canonical path (symbolic links
// resolved) lies strictly inside the canonical `base_dir` (no absolute path, no ".."). Returns that
// path; throws an input error naming `what` and the location otherwise.
std::string ResolveExternalDataPath(const std::string& base_dir, const std::string& location, const std::string& what);

// Frees the memory of the proto's inline data (raw_data and the typed fields), keeping its name, type,
// dims and any external data reference: for a caller that has decoded it and no longer needs the bytes.
void ReleaseTensorData(onnx::TensorProto* proto);

// Bytes of n elements of t in a tensor's serialized form (raw_data, external data): int4/uint4 pack two
// elements per byte. Throws an input error naming `what` when int64 cannot count them.
int64_t SerializedBytes(DataType t, int64_t n, const std::string& what);

// Encodes a tensor as raw_data (int4/uint4 packed two per byte, first element in the low nibble).
void TensorToProto(const Tensor& tensor, const std::string& name, onnx::TensorProto* proto);
// Clears `proto` and sets the name, element type and dims of `tensor` (no data).
void SetTensorProtoHeader(const Tensor& tensor, const std::string& name, onnx::TensorProto* proto);

// Reads a serialized TensorProto file (ONNX test_data_set_*/input_N.pb). The tensor's name is
// stored in *name when given.
Tensor ReadTensorProtoFile(const std::string& path, std::string* name = nullptr);

}  // namespace ptq
