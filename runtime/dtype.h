// Element types of tensors, numbered as ONNX's TensorProto.DataType, with their sizes and names.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ptq {

// Values equal TensorProto.DataType so they convert with a cast.
enum class DataType : int32_t {
  kUndefined = 0,
  kFloat = 1,
  kUint8 = 2,
  kInt8 = 3,
  kUint16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,
  kBool = 9,
  kFloat16 = 10,
  kDouble = 11,
  kUint32 = 12,
  kUint64 = 13,
  kBfloat16 = 16,
  kUint4 = 21,
  kInt4 = 22,
};

// Bytes one element occupies in memory. int4/uint4 are unpacked: one element per byte.
// Returns 0 for types ptq cannot hold (string, complex, float8).
size_t ElementSize(DataType t);

// True for the types a Tensor can hold.
bool IsSupportedDataType(DataType t);

// "float32", "int8", ... ; "type(N)" for unknown codes.
std::string DataTypeName(DataType t);

// Integer quantized types: the inclusive range of values. REQUIRES: IsQuantizedType(t).
bool IsQuantizedType(DataType t);  // int4, uint4, int8, uint8, int16, uint16
int32_t QuantMin(DataType t);
int32_t QuantMax(DataType t);

// Maps a C++ element type to its DataType (int4/uint4 are stored as int8_t/uint8_t).
template <class T>
struct DataTypeOf;
template <> struct DataTypeOf<float> { static constexpr DataType value = DataType::kFloat; };
template <> struct DataTypeOf<double> { static constexpr DataType value = DataType::kDouble; };
template <> struct DataTypeOf<int8_t> { static constexpr DataType value = DataType::kInt8; };
template <> struct DataTypeOf<uint8_t> { static constexpr DataType value = DataType::kUint8; };
template <> struct DataTypeOf<int16_t> { static constexpr DataType value = DataType::kInt16; };
template <> struct DataTypeOf<uint16_t> { static constexpr DataType value = DataType::kUint16; };
template <> struct DataTypeOf<int32_t> { static constexpr DataType value = DataType::kInt32; };
template <> struct DataTypeOf<uint32_t> { static constexpr DataType value = DataType::kUint32; };
template <> struct DataTypeOf<int64_t> { static constexpr DataType value = DataType::kInt64; };
template <> struct DataTypeOf<uint64_t> { static constexpr DataType value = DataType::kUint64; };
template <> struct DataTypeOf<bool> { static constexpr DataType value = DataType::kBool; };

}  // namespace ptq
