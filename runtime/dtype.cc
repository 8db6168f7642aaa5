// Sizes, names and integer ranges of the element types.
#include "runtime/dtype.h"

namespace ptq {

size_t ElementSize(DataType t) {
  switch (t) {
    case DataType::kFloat: return 4;
    case DataType::kUint8: return 1;
    case DataType::kInt8: return 1;
    case DataType::kUint16: return 2;
    case DataType::kInt16: return 2;
    case DataType::kInt32: return 4;
    case DataType::kInt64: return 8;
    case DataType::kBool: return 1;
    case DataType::kFloat16: return 2;
    case DataType::kDouble: return 8;
    case DataType::kUint32: return 4;
    case DataType::kUint64: return 8;
    case DataType::kBfloat16: return 2;
    case DataType::kUint4: return 1;
    case DataType::kInt4: return 1;
    default: return 0;
  }
}

bool IsSupportedDataType(DataType t) { return ElementSize(t) != 0; }

std::string DataTypeName(DataType t) {
  switch (t) {
    case DataType::kFloat: return "float32";
    case DataType::kUint8: return "uint8";
    case DataType::kInt8: return "int8";
    case DataType::kUint16: return "uint16";
    case DataType::kInt16: return "int16";
    case DataType::kInt32: return "int32";
    case DataType::kInt64: return "int64";
    case DataType::kString: return "string";
    case DataType::kBool: return "bool";
    case DataType::kFloat16: return "float16";
    case DataType::kDouble: return "float64";
    case DataType::kUint32: return "uint32";
    case DataType::kUint64: return "uint64";
    case DataType::kBfloat16: return "bfloat16";
    case DataType::kUint4: return "uint4";
    case DataType::kInt4: return "int4";
    default: return "type(" + std::to_string(static_cast<int>(t)) + ")";
  }
}

bool IsQuantizedType(DataType t) {
  switch (t) {
    case DataType::kInt4: case DataType::kUint4: case DataType::kInt8:
    case DataType::kUint8: case DataType::kInt16: case DataType::kUint16:
      return true;
    default:
      return false;
  }
}

int32_t QuantMin(DataType t) {
  switch (t) {
    case DataType::kInt4: return -8;
    case DataType::kInt8: return -128;
    case DataType::kInt16: return -32768;
    default: return 0;
  }
}

int32_t QuantMax(DataType t) {
  switch (t) {
    case DataType::kInt4: return 7;
    case DataType::kUint4: return 15;
    case DataType::kInt8: return 127;
    case DataType::kUint8: return 255;
    case DataType::kInt16: return 32767;
    case DataType::kUint16: return 65535;
    default: return 0;
  }
}

}  // namespace ptq
