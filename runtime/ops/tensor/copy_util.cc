// Strided and transposed byte copies by element size, and scalar fills, shared by the data-movement ops.
#include "runtime/ops/tensor/copy_util.h"

#include <algorithm>
#include <cstring>

#include "runtime/float16.h"
#include "runtime/shape_util.h"
#include "runtime/shape_util.h"

namespace ptq {
namespace {

constexpr int64_t kBlock = 16;  // tile edge of the blocked 2-D copy, in elements

// Calls f(src_offset, dst_offset) for every index of the dimensions `n`, where the offsets advance
// by `s` (source) and `d` (destination) per step. Calls f once when `n` is empty.
template <class F>
void ForEachIndex(const std::vector<int64_t>& n, const std::vector<int64_t>& s, const std::vector<int64_t>& d,
                  int64_t src0, int64_t dst0, F f) {
  const int64_t rank = static_cast<int64_t>(n.size());
  std::vector<int64_t> idx(n.size(), 0);
  int64_t so = src0, doff = dst0;
  while (true) {
    f(so, doff);
    int64_t k = rank - 1;
    for (; k >= 0; --k) {
      so += s[k];
      doff += d[k];
      if (++idx[k] < n[k]) break;
      so -= s[k] * n[k];
      doff -= d[k] * n[k];
      idx[k] = 0;
    }
    if (k < 0) return;
  }
}

// dst[i] = src[i * stride] for i in [0, n), elements of N bytes.
template <size_t N>
void CopyRow(const char* src, int64_t stride, int64_t n, char* dst) {
  const int64_t step = stride * static_cast<int64_t>(N);
  for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * static_cast<int64_t>(N), src + i * step, N);
}

void CopyRowAny(const char* src, int64_t stride, int64_t n, size_t es, char* dst) {
  if (stride == 1) {
    std::memcpy(dst, src, static_cast<size_t>(n) * es);
    return;
  }
  switch (es) {
    case 1: CopyRow<1>(src, stride, n, dst); return;
    case 2: CopyRow<2>(src, stride, n, dst); return;
    case 4: CopyRow<4>(src, stride, n, dst); return;
    case 8: CopyRow<8>(src, stride, n, dst); return;
    default:
      for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * es, src + i * stride * static_cast<int64_t>(es), es);
  }
}

// Tile of a 2-D transpose: dst[j * dst_j + l] = src[j + l * src_l] for j < nj, l < nl.
template <size_t N>
void CopyTile(const char* src, int64_t src_l, int64_t nj, int64_t nl, int64_t dst_j, char* dst) {
  constexpr int64_t n = static_cast<int64_t>(N);
  for (int64_t j = 0; j < nj; ++j) {
    for (int64_t l = 0; l < nl; ++l) std::memcpy(dst + (j * dst_j + l) * n, src + (j + l * src_l) * n, N);
  }
}

void CopyTileAny(const char* src, int64_t src_l, int64_t nj, int64_t nl, int64_t dst_j, size_t es, char* dst) {
  switch (es) {
    case 1: CopyTile<1>(src, src_l, nj, nl, dst_j, dst); return;
    case 2: CopyTile<2>(src, src_l, nj, nl, dst_j, dst); return;
    case 4: CopyTile<4>(src, src_l, nj, nl, dst_j, dst); return;
    case 8: CopyTile<8>(src, src_l, nj, nl, dst_j, dst); return;
    default: {
      const int64_t e = static_cast<int64_t>(es);
      for (int64_t j = 0; j < nj; ++j) {
        for (int64_t l = 0; l < nl; ++l) std::memcpy(dst + (j * dst_j + l) * e, src + (j + l * src_l) * e, es);
      }
    }
  }
}

}  // namespace

void CopyStrided(const void* src, int64_t offset, const std::vector<int64_t>& src_strides,
                 const Shape& out_shape, size_t elem_size, void* dst) {
  if (ShapeSize(out_shape) == 0) return;
  // Drop size-1 dimensions; merge a dimension into the previous one when they are contiguous in src
  // (dst is always contiguous).
  std::vector<int64_t> n, s;
  for (size_t k = 0; k < out_shape.size(); ++k) {
    if (out_shape[k] == 1) continue;
    if (!n.empty() && s.back() == src_strides[k] * out_shape[k]) {
      n.back() *= out_shape[k];
      s.back() = src_strides[k];
    } else {
      n.push_back(out_shape[k]);
      s.push_back(src_strides[k]);
    }
  }
  const char* in = static_cast<const char*>(src);
  char* out = static_cast<char*>(dst);
  const int64_t es = static_cast<int64_t>(elem_size);
  if (n.empty()) {
    std::memcpy(out, in + offset * es, elem_size);
    return;
  }
  const std::vector<int64_t> d = Strides(n);  // destination strides of the merged shape
  const size_t last = n.size() - 1;
  const int64_t inner_n = n[last], inner_s = s[last];

  // Blocked path: the innermost output dimension is strided in src while another dimension j is
  // contiguous in src (a transpose); copy (j, last) in tiles so both sides stay in cache.
  size_t j = last;
  for (size_t k = 0; k < last; ++k) {
    if (s[k] == 1) j = k;
  }
  if (inner_s != 1 && j != last && n[j] >= 4 && inner_n >= 4) {
    std::vector<int64_t> on, os, od;  // the other dimensions
    for (size_t k = 0; k < last; ++k) {
      if (k == j) continue;
      on.push_back(n[k]);
      os.push_back(s[k]);
      od.push_back(d[k]);
    }
    const int64_t nj = n[j], dj = d[j];
    ForEachIndex(on, os, od, offset, 0, [&](int64_t so, int64_t doff) {
      for (int64_t jb = 0; jb < nj; jb += kBlock) {
        for (int64_t lb = 0; lb < inner_n; lb += kBlock) {
          CopyTileAny(in + (so + jb + lb * inner_s) * es, inner_s, std::min(kBlock, nj - jb),
                      std::min(kBlock, inner_n - lb), dj, elem_size, out + (doff + jb * dj + lb) * es);
        }
      }
    });
    return;
  }

  n.pop_back();
  s.pop_back();
  std::vector<int64_t> outer_d(d.begin(), d.end() - 1);
  ForEachIndex(n, s, outer_d, offset, 0, [&](int64_t so, int64_t doff) {
    CopyRowAny(in + so * es, inner_s, inner_n, elem_size, out + doff * es);
  });
}

void TransposeCopy(const void* src, const Shape& in_shape, const std::vector<int64_t>& perm,
                   size_t elem_size, void* dst) {
  const std::vector<int64_t> in_strides = Strides(in_shape);
  Shape out_shape(perm.size());
  std::vector<int64_t> strides(perm.size());
  for (size_t k = 0; k < perm.size(); ++k) {
    out_shape[k] = in_shape[static_cast<size_t>(perm[k])];
    strides[k] = in_strides[static_cast<size_t>(perm[k])];
  }
  CopyStrided(src, 0, strides, out_shape, elem_size, dst);
}

Tensor Transposed(const Tensor& in, const std::vector<int64_t>& perm) {
  Shape out_shape(perm.size());
  for (size_t k = 0; k < perm.size(); ++k) out_shape[k] = in.shape()[static_cast<size_t>(perm[k])];
  Tensor out = Tensor::Uninitialized(in.dtype(), out_shape);  // a permutation writes every element
  TransposeCopy(in.raw(), in.shape(), perm, ElementSize(in.dtype()), out.raw());
  return out;
}

void FillElements(void* dst, int64_t n, const void* value, size_t elem_size) {
  if (n <= 0) return;
  char* out = static_cast<char*>(dst);
  std::memcpy(out, value, elem_size);
  // Doubling copies: each memcpy duplicates what is already written.
  int64_t done = 1;
  while (done < n) {
    const int64_t chunk = std::min(done, n - done);
    std::memcpy(out + done * static_cast<int64_t>(elem_size), out, static_cast<size_t>(chunk) * elem_size);
    done += chunk;
  }
}

void StoreScalar(DataType dtype, double value, void* dst) {
  auto put = [dst](auto v) { std::memcpy(dst, &v, sizeof(v)); };
  switch (dtype) {
    case DataType::kFloat: put(static_cast<float>(value)); return;
    case DataType::kDouble: put(value); return;
    case DataType::kFloat16: put(FloatToHalf(static_cast<float>(value))); return;
    case DataType::kBfloat16: put(FloatToBfloat16(static_cast<float>(value))); return;
    case DataType::kInt4:
    case DataType::kInt8: put(static_cast<int8_t>(value)); return;
    case DataType::kUint4:
    case DataType::kUint8: put(static_cast<uint8_t>(value)); return;
    case DataType::kInt16: put(static_cast<int16_t>(value)); return;
    case DataType::kUint16: put(static_cast<uint16_t>(value)); return;
    case DataType::kInt32: put(static_cast<int32_t>(value)); return;
    case DataType::kUint32: put(static_cast<uint32_t>(value)); return;
    case DataType::kInt64: put(static_cast<int64_t>(value)); return;
    case DataType::kUint64: put(static_cast<uint64_t>(value)); return;
    case DataType::kBool: put(static_cast<uint8_t>(value != 0.0 ? 1 : 0)); return;
    default: ThrowInputError("cannot write a number into a tensor of type ", DataTypeName(dtype));
  }
}

}  // namespace ptq
