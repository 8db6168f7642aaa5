// An n-dimensional array: element type, shape, and a shared buffer (64-byte aligned when allocated here).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/dtype.h"
#include "runtime/error.h"

namespace ptq {

using Shape = std::vector<int64_t>;

// Number of elements of a shape; throws an input error when a dimension is negative or the
// product overflows int64.
int64_t ShapeSize(const Shape& shape);
std::string ShapeToString(const Shape& shape);  // "[2, 3, 4]"

// Largest buffer a single tensor may allocate (bytes). Protects the machine from declared sizes
// that would not fit in memory. Default 16 GiB; settable for tests and by the CLI.
int64_t MaxTensorBytes();
void SetMaxTensorBytes(int64_t bytes);

// Memory budget of one loaded model (bytes): its parsed protobuf and graph structure plus every
// constant tensor (initializers, Constant nodes, tensor attributes), checked before each is allocated.
// Default: the machine's physical memory. Settable for tests and fuzzing.
int64_t MaxModelBytes();
void SetMaxModelBytes(int64_t bytes);

// Tensors are values: a kernel never modifies a tensor it did not create, so copies may share
// their buffer (Reshape and Identity are free).
class Tensor {
 public:
  Tensor() = default;
  // Allocates a zero-filled tensor. Throws an input error when the size exceeds MaxTensorBytes().
  Tensor(DataType dtype, Shape shape);
  // As above without the zero fill: for kernels that write every element of their output.
  static Tensor Uninitialized(DataType dtype, Shape shape);

  // A tensor with the given shape sharing this tensor's buffer. REQUIRES: same element count.
  Tensor Reshaped(Shape shape) const;
  // A tensor over a buffer the caller provides (a read-only file mapping: runtime/mapped_file.h), which
  // must hold the elements and 64 readable bytes past them. Its size is held to MaxTensorBytes().
  static Tensor FromBuffer(DataType dtype, Shape shape, std::shared_ptr<void> buffer);
  const std::shared_ptr<void>& buffer() const { return data_; }

 private:
  Tensor(DataType dtype, Shape shape, bool zero_fill);

 public:

  template <class T>
  static Tensor FromVector(Shape shape, const std::vector<T>& values, DataType dtype = DataTypeOf<T>::value);
  template <class T>
  static Tensor Scalar(T value, DataType dtype = DataTypeOf<T>::value) {
    return FromVector<T>({}, {value}, dtype);
  }

  bool empty_value() const { return dtype_ == DataType::kUndefined; }  // default-constructed
  DataType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int64_t rank() const { return static_cast<int64_t>(shape_.size()); }
  int64_t dim(int64_t i) const { return shape_[static_cast<size_t>(i)]; }
  int64_t size() const { return size_; }  // element count
  size_t nbytes() const { return static_cast<size_t>(size_) * ElementSize(dtype_); }

  void* raw() { return data_.get(); }
  const void* raw() const { return data_.get(); }
  // Typed access. T must match the element type's storage (int4 as int8_t, uint4 as uint8_t,
  // float16/bfloat16 as uint16_t); a mismatch throws an internal error.
  template <class T>
  T* data() {
    CheckType(sizeof(T), IsStorageOf<T>());
    return static_cast<T*>(data_.get());
  }
  template <class T>
  const T* data() const {
    CheckType(sizeof(T), IsStorageOf<T>());
    return static_cast<const T*>(data_.get());
  }

  // Reads element i of any numeric type as double (for tests, shape inputs, scalars).
  double GetAsDouble(int64_t i) const;
  // All elements as int64 (for shape-like inputs: Reshape's shape, Slice's starts, ...).
  std::vector<int64_t> ToInt64Vector() const;
  // All elements converted to float32.
  std::vector<float> ToFloatVector() const;

 private:
  template <class T>
  bool IsStorageOf() const;
  void CheckType(size_t elem_size, bool ok) const;

  DataType dtype_ = DataType::kUndefined;
  Shape shape_;
  int64_t size_ = 0;
  std::shared_ptr<void> data_;
};

template <class T>
bool Tensor::IsStorageOf() const {
  const DataType d = dtype_;
  if (d == DataTypeOf<T>::value) return true;
  if (std::is_same<T, int8_t>::value) return d == DataType::kInt4;
  if (std::is_same<T, uint8_t>::value) return d == DataType::kUint4;
  if (std::is_same<T, uint16_t>::value) return d == DataType::kFloat16 || d == DataType::kBfloat16;
  return false;
}

template <class T>
Tensor Tensor::FromVector(Shape shape, const std::vector<T>& values, DataType dtype) {
  Tensor t(dtype, std::move(shape));
  if (static_cast<int64_t>(values.size()) != t.size()) {
    throw Error(ErrorKind::kInternal, StrCat("Tensor::FromVector: ", values.size(), " values for shape ",
                                             ShapeToString(t.shape())));
  }
  T* out = t.data<T>();
  for (size_t i = 0; i < values.size(); ++i) out[i] = values[i];
  return t;
}

}  // namespace ptq
