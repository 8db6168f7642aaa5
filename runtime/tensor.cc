// Tensor allocation, size checks and element conversion.
#include "runtime/tensor.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <limits>

#include <unistd.h>

#include "runtime/buffer_pool.h"
#include "runtime/float16.h"
#include "runtime/memory_usage.h"

namespace ptq {

namespace {
std::atomic<int64_t> g_max_tensor_bytes{int64_t{16} << 30};
}

int64_t MaxTensorBytes() { return g_max_tensor_bytes.load(); }
void SetMaxTensorBytes(int64_t bytes) { g_max_tensor_bytes.store(bytes); }

namespace {
std::atomic<int64_t> g_max_model_bytes{-1};  // -1: physical memory
}

int64_t MaxModelBytes() {
  const int64_t set = g_max_model_bytes.load();
  if (set >= 0) return set;
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<int64_t>(pages) * page : int64_t{16} << 30;
}
void SetMaxModelBytes(int64_t bytes) { g_max_model_bytes.store(bytes); }

int64_t ShapeSize(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) ThrowInputError("negative dimension in shape ", ShapeToString(shape));
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d) {
      ThrowInputError("shape ", ShapeToString(shape), " has more elements than int64 can count");
    }
    n *= d;
  }
  return n;
}

std::string ShapeToString(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

Tensor::Tensor(DataType dtype, Shape shape) : Tensor(dtype, std::move(shape), true) {}

Tensor Tensor::Uninitialized(DataType dtype, Shape shape) { return Tensor(dtype, std::move(shape), false); }

namespace {

// Element count of `shape`, held to MaxTensorBytes().
int64_t CheckedSize(DataType dtype, const Shape& shape) {
  const size_t esize = ElementSize(dtype);
  if (esize == 0) ThrowInputError("tensors of type ", DataTypeName(dtype), " are not supported");
  const int64_t size = ShapeSize(shape);
  if (size > MaxTensorBytes() / static_cast<int64_t>(esize)) {
    ThrowInputError("tensor of type ", DataTypeName(dtype), " and shape ", ShapeToString(shape),
                    " would need more than the memory limit of ", MaxTensorBytes(), " bytes");
  }
  return size;
}

}  // namespace

Tensor::Tensor(DataType dtype, Shape shape, bool zero_fill) : dtype_(dtype), shape_(std::move(shape)) {
  size_ = CheckedSize(dtype, shape_);
  const size_t esize = ElementSize(dtype);
  // Round up to 64 bytes so vector kernels may read whole registers past the end.
  const size_t bytes = (static_cast<size_t>(size_) * esize + 63) / 64 * 64 + 64;
  void* p = AcquireBuffer(bytes);
  if (!p) ThrowOutOfMemory(StrCat("allocating ", bytes, " bytes for shape ", ShapeToString(shape_)));
  if (zero_fill) {
    std::memset(p, 0, bytes);
  } else {  // the padding past the end stays defined, for vector kernels that read it
    std::memset(static_cast<char*>(p) + bytes - 64, 0, 64);
  }
  data_ = std::shared_ptr<void>(p, [bytes](void* q) { ReleaseBuffer(q, bytes); });
}

Tensor Tensor::FromBuffer(DataType dtype, Shape shape, std::shared_ptr<void> buffer) {
  Tensor t;
  t.size_ = CheckedSize(dtype, shape);
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.data_ = std::move(buffer);
  return t;
}

Tensor Tensor::Reshaped(Shape shape) const {
  Tensor t = *this;
  const int64_t n = ShapeSize(shape);
  if (n != size_) {
    ThrowInputError("cannot reshape ", ShapeToString(shape_), " to ", ShapeToString(shape));
  }
  t.shape_ = std::move(shape);
  return t;
}

void Tensor::CheckType(size_t elem_size, bool ok) const {
  if (!ok || elem_size != ElementSize(dtype_)) {
    throw Error(ErrorKind::kInternal, StrCat("tensor of type ", DataTypeName(dtype_),
                                             " accessed as a ", elem_size, "-byte element type"));
  }
}

double Tensor::GetAsDouble(int64_t i) const {
  const void* p = data_.get();
  switch (dtype_) {
    case DataType::kFloat: return static_cast<const float*>(p)[i];
    case DataType::kDouble: return static_cast<const double*>(p)[i];
    case DataType::kFloat16: return HalfToFloat(static_cast<const uint16_t*>(p)[i]);
    case DataType::kBfloat16: return Bfloat16ToFloat(static_cast<const uint16_t*>(p)[i]);
    case DataType::kInt4:
    case DataType::kInt8: return static_cast<const int8_t*>(p)[i];
    case DataType::kUint4:
    case DataType::kUint8: return static_cast<const uint8_t*>(p)[i];
    case DataType::kInt16: return static_cast<const int16_t*>(p)[i];
    case DataType::kUint16: return static_cast<const uint16_t*>(p)[i];
    case DataType::kInt32: return static_cast<const int32_t*>(p)[i];
    case DataType::kUint32: return static_cast<const uint32_t*>(p)[i];
    case DataType::kInt64: return static_cast<double>(static_cast<const int64_t*>(p)[i]);
    case DataType::kUint64: return static_cast<double>(static_cast<const uint64_t*>(p)[i]);
    case DataType::kBool: return static_cast<const bool*>(p)[i] ? 1.0 : 0.0;
    default: throw Error(ErrorKind::kInternal, "GetAsDouble on " + DataTypeName(dtype_));
  }
}

std::vector<int64_t> Tensor::ToInt64Vector() const {
  std::vector<int64_t> v(static_cast<size_t>(size_));
  if (dtype_ == DataType::kInt64) {
    if (!v.empty()) std::memcpy(v.data(), data_.get(), v.size() * 8);
  } else {
    for (int64_t i = 0; i < size_; ++i) v[static_cast<size_t>(i)] = static_cast<int64_t>(GetAsDouble(i));
  }
  return v;
}

std::vector<float> Tensor::ToFloatVector() const {
  std::vector<float> v(static_cast<size_t>(size_));
  for (int64_t i = 0; i < size_; ++i) v[static_cast<size_t>(i)] = static_cast<float>(GetAsDouble(i));
  return v;
}

}  // namespace ptq
