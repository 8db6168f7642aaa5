// Reading and writing NumPy .npy arrays (format versions 1.0, 2.0 and 3.0, little-endian, C order).
#pragma once

#include <string>

#include "runtime/tensor.h"

namespace ptq {

// Decodes the bytes of a .npy file. `what` names it in errors (file path, or "archive.npz:key").
// The header is checked before anything is allocated: its shape must match the bytes present.
// Supported dtypes: f2 f4 f8 i1 i2 i4 i8 u1 u2 u4 u8 b1; Fortran order and big-endian data are errors.
Tensor ParseNpy(const std::string& bytes, const std::string& what);

// Reads a .npy file.
Tensor ReadNpy(const std::string& path);

// Encodes a tensor as .npy bytes (version 1.0; int4/uint4 are written as int8/uint8).
std::string EncodeNpy(const Tensor& tensor);

// Writes a .npy file atomically.
void WriteNpy(const std::string& path, const Tensor& tensor);

}  // namespace ptq
