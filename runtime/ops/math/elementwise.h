// Shared machinery of the element-wise kernels: element traits, type dispatch, unary maps,
// broadcast loops and the generic unary/binary/variadic kernels built from them.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "runtime/cpu_features.h"
#include "runtime/float16.h"
#include "runtime/kernel.h"
#include "runtime/tensor.h"
#include "runtime/threading.h"

namespace ptq {

// ---- Element traits -------------------------------------------------------------------------
// How elements of a DataType are stored in a Tensor (Storage) and the type arithmetic runs in
// (Compute): float16 and bfloat16 compute in float; every other type in its storage type.
template <DataType D, class S>
struct PlainElem {
  static constexpr DataType kType = D;
  using Storage = S;
  using Compute = S;
  static S Load(S v) { return v; }
  static S Store(S v) { return v; }
};
template <DataType D> struct Elem;
template <> struct Elem<DataType::kFloat> : PlainElem<DataType::kFloat, float> {};
template <> struct Elem<DataType::kDouble> : PlainElem<DataType::kDouble, double> {};
template <> struct Elem<DataType::kInt8> : PlainElem<DataType::kInt8, int8_t> {};
template <> struct Elem<DataType::kInt16> : PlainElem<DataType::kInt16, int16_t> {};
template <> struct Elem<DataType::kInt32> : PlainElem<DataType::kInt32, int32_t> {};
template <> struct Elem<DataType::kInt64> : PlainElem<DataType::kInt64, int64_t> {};
template <> struct Elem<DataType::kUint8> : PlainElem<DataType::kUint8, uint8_t> {};
template <> struct Elem<DataType::kUint16> : PlainElem<DataType::kUint16, uint16_t> {};
template <> struct Elem<DataType::kUint32> : PlainElem<DataType::kUint32, uint32_t> {};
template <> struct Elem<DataType::kUint64> : PlainElem<DataType::kUint64, uint64_t> {};
template <> struct Elem<DataType::kBool> : PlainElem<DataType::kBool, bool> {};
template <> struct Elem<DataType::kInt4> : PlainElem<DataType::kInt4, int8_t> {};
template <> struct Elem<DataType::kUint4> : PlainElem<DataType::kUint4, uint8_t> {};
template <> struct Elem<DataType::kFloat16> {
  static constexpr DataType kType = DataType::kFloat16;
  using Storage = uint16_t;
  using Compute = float;
  static float Load(uint16_t v) { return HalfToFloat(v); }
  static uint16_t Store(float v) { return FloatToHalf(v); }
};
template <> struct Elem<DataType::kBfloat16> {
  static constexpr DataType kType = DataType::kBfloat16;
  using Storage = uint16_t;
  using Compute = float;
  static float Load(uint16_t v) { return Bfloat16ToFloat(v); }
  static uint16_t Store(float v) { return FloatToBfloat16(v); }
};

// ---- Type dispatch ----------------------------------------------------------------------------
// Sets of element types a kernel accepts (bit flags).
enum TypeSet : unsigned {
  kFloatTypes = 1u << 0,         // float32, float64, float16, bfloat16
  kSignedIntTypes = 1u << 1,     // int8, int16, int32, int64
  kUnsignedIntTypes = 1u << 2,   // uint8, uint16, uint32, uint64
  kBoolType = 1u << 3,
  kInt4Types = 1u << 4,          // int4, uint4
  kIntTypes = kSignedIntTypes | kUnsignedIntTypes,
  kNumericTypes = kFloatTypes | kIntTypes,
  kSignedTypes = kFloatTypes | kSignedIntTypes,
  kAllTypes = kNumericTypes | kBoolType | kInt4Types,
};

// Throws an input error: "<op>: input '<input>' has type T; supported types: ...".
[[noreturn]] void ThrowUnsupportedType(const std::string& op, const std::string& input, DataType t,
                                       unsigned types);

// Calls f(Elem<t>{}) when t is one of Types; otherwise throws ThrowUnsupportedType. Only the
// types in Types are instantiated.
template <unsigned Types, class F>
void DispatchType(DataType t, const std::string& op, const std::string& input, F&& f) {
#define PTQ_DISPATCH_CASE(SET, D)                    \
  case D:                                            \
    if constexpr ((Types & (SET)) != 0) return f(Elem<D>{}); \
    break;
  switch (t) {
    PTQ_DISPATCH_CASE(kFloatTypes, DataType::kFloat)
    PTQ_DISPATCH_CASE(kFloatTypes, DataType::kDouble)
    PTQ_DISPATCH_CASE(kFloatTypes, DataType::kFloat16)
    PTQ_DISPATCH_CASE(kFloatTypes, DataType::kBfloat16)
    PTQ_DISPATCH_CASE(kSignedIntTypes, DataType::kInt8)
    PTQ_DISPATCH_CASE(kSignedIntTypes, DataType::kInt16)
    PTQ_DISPATCH_CASE(kSignedIntTypes, DataType::kInt32)
    PTQ_DISPATCH_CASE(kSignedIntTypes, DataType::kInt64)
    PTQ_DISPATCH_CASE(kUnsignedIntTypes, DataType::kUint8)
    PTQ_DISPATCH_CASE(kUnsignedIntTypes, DataType::kUint16)
    PTQ_DISPATCH_CASE(kUnsignedIntTypes, DataType::kUint32)
    PTQ_DISPATCH_CASE(kUnsignedIntTypes, DataType::kUint64)
    PTQ_DISPATCH_CASE(kBoolType, DataType::kBool)
    PTQ_DISPATCH_CASE(kInt4Types, DataType::kInt4)
    PTQ_DISPATCH_CASE(kInt4Types, DataType::kUint4)
    default:
      break;
  }
#undef PTQ_DISPATCH_CASE
  ThrowUnsupportedType(op, input, t, Types);
}

// True for the integer Compute types (not bool).
template <class T>
constexpr bool kIsInt = std::is_integral<T>::value && !std::is_same<T, bool>::value;

// Two's-complement wrapping +, -, * for integers (no undefined behaviour on overflow); plain
// arithmetic for floating types.
template <class T>
using WrapType = std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>;
template <class T>
T WrapAdd(T a, T b) {
  if constexpr (kIsInt<T>) return static_cast<T>(static_cast<WrapType<T>>(a) + static_cast<WrapType<T>>(b));
  else return a + b;
}
template <class T>
T WrapSub(T a, T b) {
  if constexpr (kIsInt<T>) return static_cast<T>(static_cast<WrapType<T>>(a) - static_cast<WrapType<T>>(b));
  else return a - b;
}
template <class T>
T WrapMul(T a, T b) {
  if constexpr (kIsInt<T>) return static_cast<T>(static_cast<WrapType<T>>(a) * static_cast<WrapType<T>>(b));
  else return a * b;
}

// Floating value to integer type I: truncated toward zero, saturated at I's range; NaN gives 0.
template <class I, class F>
I SaturateCast(F v) {
  if (!(v == v)) return I(0);
  const double d = static_cast<double>(v);
  const double lo = static_cast<double>(std::numeric_limits<I>::min());      // 0 or -2^(bits-1)
  const double hi = static_cast<double>(std::numeric_limits<I>::max()) + 1.0;  // 2^bits or 2^(bits-1)
  if (d >= hi) return std::numeric_limits<I>::max();
  if (d <= lo) return std::numeric_limits<I>::min();
  return static_cast<I>(d);
}

// ---- Run-time ISA choice -----------------------------------------------------------------------
// Loops over float arrays are compiled twice: for the baseline ISA and, on x86-64, for AVX2 (8 lanes
// instead of 4), chosen per call by GetCpuFeatures(). The same operations run in both (no FMA
// contraction: -ffp-contract=off; a fused multiply-add only where the code calls std::fma, which the
// clones, compiled with FMA, do in registers and the baseline by libm's fmaf), so both give the same bits.
// The unary and binary maps below also have an AVX-512 clone (16 lanes), for the transcendental maps
// (Sigmoid, Silu, Gelu, Exp, Tanh) whose cost is arithmetic rather than memory.
#if defined(__x86_64__)
#define PTQ_TARGET_AVX2 __attribute__((target("avx2,fma")))
#define PTQ_TARGET_AVX512 __attribute__((target("avx512f,fma")))
#define PTQ_HAS_AVX2_CLONES 1
#else
#define PTQ_TARGET_AVX2
#define PTQ_TARGET_AVX512
#define PTQ_HAS_AVX2_CLONES 0
#endif

// True when the AVX2 clone of a loop over element types In and Out should run.
template <class In, class Out>
bool UseAvx2Clone() {
  if constexpr (PTQ_HAS_AVX2_CLONES && std::is_same<In, float>::value && std::is_same<Out, float>::value) {
    return GetCpuFeatures().avx2_fma;
  } else {
    return false;
  }
}

// True when the AVX-512 clone of a map over float arrays should run.
template <class In, class Out>
bool UseAvx512Clone() {
  if constexpr (PTQ_HAS_AVX2_CLONES && std::is_same<In, float>::value && std::is_same<Out, float>::value) {
    return GetCpuFeatures().avx512f && GetCpuFeatures().avx2_fma;
  } else {
    return false;
  }
}

// ---- Unary map --------------------------------------------------------------------------------
// y[i] = fn(x[i]) over contiguous arrays (kept minimal so that the loop vectorises). y may be x (in place): no
// __restrict, and GCC's check for overlap before the vector loop lets an exact alias through.
template <class In, class Out, class Fn>
__attribute__((always_inline)) inline void MapArrayLoop(const In* x, Out* y, int64_t n, const Fn& fn) {
  for (int64_t i = 0; i < n; ++i) y[i] = fn(x[i]);
}
template <class In, class Out, class Fn>
PTQ_TARGET_AVX2 void MapArrayAvx2(const In* x, Out* y, int64_t n, const Fn& fn) {
  MapArrayLoop(x, y, n, fn);
}
template <class In, class Out, class Fn>
PTQ_TARGET_AVX512 void MapArrayAvx512(const In* x, Out* y, int64_t n, const Fn& fn) {
  MapArrayLoop(x, y, n, fn);
}
// A map whose Fn has `static void ArrayAvx2(const float* x, float* y, int64_t n)` (its own AVX2 loop over
// float arrays, with the bits of fn) runs that instead of the compiler's AVX2 clone.
template <class Fn, class = void>
struct HasArrayAvx2 : std::false_type {};
template <class Fn>
struct HasArrayAvx2<Fn, std::void_t<decltype(&Fn::ArrayAvx2)>> : std::true_type {};
// Likewise `static void ArrayAvx512(...)`, run instead of the compiler's AVX-512 clone.
template <class Fn, class = void>
struct HasArrayAvx512 : std::false_type {};
template <class Fn>
struct HasArrayAvx512<Fn, std::void_t<decltype(&Fn::ArrayAvx512)>> : std::true_type {};

template <class In, class Out, class Fn>
void MapArray(const In* x, Out* y, int64_t n, const Fn& fn) {
  if (UseAvx512Clone<In, Out>()) {
    if constexpr (HasArrayAvx512<Fn>::value && std::is_same<In, float>::value && std::is_same<Out, float>::value) {
      Fn::ArrayAvx512(x, y, n);
    } else {
      MapArrayAvx512(x, y, n, fn);
    }
  } else if (UseAvx2Clone<In, Out>()) {
    if constexpr (HasArrayAvx2<Fn>::value && std::is_same<In, float>::value && std::is_same<Out, float>::value) {
      Fn::ArrayAvx2(x, y, n);
    } else {
      MapArrayAvx2(x, y, n, fn);
    }
  } else {
    MapArrayLoop(x, y, n, fn);
  }
}

// Element-wise work of at least this many outputs is shared between threads (results do not depend on it).
constexpr int64_t kParallelElements = int64_t{1} << 16;

// The threads for `n` outputs of element-wise work: 1 below kParallelElements or inside a parallel region.
inline int ElementwiseThreads(int64_t n) {
  return n < kParallelElements || InParallelRegion() ? 1 : omp_get_max_threads();
}

// f(begin, end) over [0, n) in contiguous chunks of whole blocks of `block` elements: one chunk, or
// kUnitsPerThread per thread.
template <class F>
void ForEachChunk(int64_t n, int64_t block, int threads, const F& f) {
  if (threads <= 1) {
    f(int64_t{0}, n);
    return;
  }
  const int64_t blocks = (n + block - 1) / block;
  const int chunks = threads * kUnitsPerThread;
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int t = 0; t < chunks; ++t) {
    const int64_t b0 = blocks * t / chunks, b1 = blocks * (t + 1) / chunks;
    const int64_t begin = b0 * block, end = b1 * block < n ? b1 * block : n;
    if (begin < end) f(begin, end);
  }
}

// y = fn(x) element-wise; y has x's shape and EO's type; fn maps EI::Compute to EO::Compute.
// float16/bfloat16 elements are converted in blocks so that fn runs over float arrays.
// With `reuse` (x itself, which the caller will not read again and nothing else holds: KernelContext::Reusable), y
// is written over x's buffer when the element types' storage is the same.
template <class EI, class EO, class Fn>
Tensor MapUnary(const Tensor& x, const Fn& fn, const Tensor* reuse = nullptr) {
  using SI = typename EI::Storage;
  using SO = typename EO::Storage;
  using CI = typename EI::Compute;
  using CO = typename EO::Compute;
  Tensor y = reuse != nullptr && std::is_same<SI, SO>::value ? Tensor::FromBuffer(EO::kType, x.shape(), reuse->buffer())
                                                             : Tensor::Uninitialized(EO::kType, x.shape());
  const SI* in = x.data<SI>();
  SO* out = y.data<SO>();
  const int64_t n = x.size();
  constexpr int64_t kBlock = 256;
  ForEachChunk(n, kBlock, ElementwiseThreads(n), [&](int64_t begin, int64_t end) {
    if constexpr (std::is_same<SI, CI>::value && std::is_same<SO, CO>::value) {
      MapArray(in + begin, out + begin, end - begin, fn);
    } else {
      CI a[kBlock];
      CO b[kBlock];
      for (int64_t start = begin; start < end; start += kBlock) {
        const int64_t len = end - start < kBlock ? end - start : kBlock;
        for (int64_t i = 0; i < len; ++i) a[i] = EI::Load(in[start + i]);
        MapArray(a, b, len, fn);
        for (int64_t i = 0; i < len; ++i) out[start + i] = EO::Store(b[i]);
      }
    }
  });
  return y;
}

// ---- Broadcasting -----------------------------------------------------------------------------
// How to walk an n-ary numpy broadcast: adjacent axes that every input walks alike are merged;
// the innermost merged axis becomes a run of `inner` elements in which each input either
// advances by one element (step 1) or repeats one element (step 0); the other merged axes are
// walked by an odometer that updates offsets incrementally.
struct BroadcastPlan {
  Shape out_shape;
  int64_t out_size = 0;
  int64_t inner = 1;                               // elements per run
  std::vector<int64_t> inner_step;                 // per input: 1 or 0
  std::vector<int64_t> outer_dims;                 // merged outer axes, outermost first
  std::vector<std::vector<int64_t>> outer_strides; // [input][outer axis], in elements
};

// Throws an input error naming the shapes when they do not broadcast.
BroadcastPlan PlanBroadcast(const std::vector<const Shape*>& shapes);

// Calls run(offsets, out_offset, length) for every run of the plan, pieces of runs when the work is
// shared between threads (the output split into contiguous chunks); offsets[k] is input k's element
// offset at out_offset. Which thread computes an element does not change it.
template <class Fn>
void ForEachRun(const BroadcastPlan& p, const Fn& run) {
  if (p.out_size == 0) return;
  const size_t num_inputs = p.inner_step.size();
  const size_t rank = p.outer_dims.size();
  const int threads = ElementwiseThreads(p.out_size);
  // Runs [begin, end) of the output (pieces of runs at its ends): the first element's multi-index over the outer
  // axes by division, then the odometer from run to run (a division per run cost more than a run of 32 values).
  auto runs_of = [&](int64_t begin, int64_t end) {
    std::vector<int64_t> index(rank), offsets(num_inputs, 0);
    int64_t r = begin / p.inner, within = begin % p.inner;
    for (size_t axis = rank; axis-- > 0;) {
      index[axis] = r % p.outer_dims[axis];
      r /= p.outer_dims[axis];
      for (size_t k = 0; k < num_inputs; ++k) offsets[k] += index[axis] * p.outer_strides[k][axis];
    }
    for (size_t k = 0; k < num_inputs; ++k) offsets[k] += within * p.inner_step[k];  // a piece from inside a run
    for (int64_t at = begin; at < end;) {
      const int64_t len = std::min(end - at, p.inner - within);
      run(offsets.data(), at, len);
      at += len;
      if (within > 0) {  // back to the run's start
        for (size_t k = 0; k < num_inputs; ++k) offsets[k] -= within * p.inner_step[k];
        within = 0;
      }
      for (size_t axis = rank; axis-- > 0;) {
        if (++index[axis] < p.outer_dims[axis]) {
          for (size_t k = 0; k < num_inputs; ++k) offsets[k] += p.outer_strides[k][axis];
          break;
        }
        index[axis] = 0;
        for (size_t k = 0; k < num_inputs; ++k) offsets[k] -= p.outer_strides[k][axis] * (p.outer_dims[axis] - 1);
      }
    }
  };
  if (threads > 1) {
    ForEachChunk(p.out_size, 1024, threads, runs_of);
  } else {
    runs_of(0, p.out_size);
  }
}

// For a plan of two inputs: f(a_offset, b_offset, a_row_stride, b_row_stride, first, count) over its runs [r0, r1)
// (rows of p.inner outputs, numbered in output order, so run r is at r * p.inner), a call per span of runs of one
// index of the outer axes but the last, which are spaced by that axis's strides. No outer axes: the one run.
template <class F>
void ForEachRowSpan(const BroadcastPlan& p, int64_t r0, int64_t r1, const F& f) {
  const size_t rank = p.outer_dims.size();
  if (rank == 0) {
    f(int64_t{0}, int64_t{0}, int64_t{0}, int64_t{0}, int64_t{0}, int64_t{1});
    return;
  }
  const int64_t last = p.outer_dims[rank - 1];
  const int64_t ra = p.outer_strides[0][rank - 1], rb = p.outer_strides[1][rank - 1];
  for (int64_t r = r0; r < r1;) {
    const int64_t within = r % last, count = std::min(r1 - r, last - within);
    int64_t oa = within * ra, ob = within * rb, q = r / last;
    for (size_t axis = rank - 1; axis-- > 0;) {
      const int64_t i = q % p.outer_dims[axis];
      q /= p.outer_dims[axis];
      oa += i * p.outer_strides[0][axis];
      ob += i * p.outer_strides[1][axis];
    }
    f(oa, ob, ra, rb, r, count);
    r += count;
  }
}

// out[i] = Store(fn(Load(a[i*sa]), Load(b[i*sb]))) for i < n, with sa, sb in {0, 1}. Always inlined,
// so that it is compiled for the ISA of the function that calls it. out may be a or b (in place; no __restrict).
template <class EA, class EB, class EO, class Fn>
__attribute__((always_inline)) inline void BinaryRunLoop(const typename EA::Storage* a, int64_t sa,
                                                         const typename EB::Storage* b, int64_t sb,
                                                         typename EO::Storage* out, int64_t n, const Fn& fn) {
  if (sa && sb) {
    for (int64_t i = 0; i < n; ++i) out[i] = EO::Store(fn(EA::Load(a[i]), EB::Load(b[i])));
  } else if (sa) {
    const auto y = EB::Load(b[0]);
    for (int64_t i = 0; i < n; ++i) out[i] = EO::Store(fn(EA::Load(a[i]), y));
  } else if (sb) {
    const auto x = EA::Load(a[0]);
    for (int64_t i = 0; i < n; ++i) out[i] = EO::Store(fn(x, EB::Load(b[i])));
  } else {
    const auto v = EO::Store(fn(EA::Load(a[0]), EB::Load(b[0])));
    for (int64_t i = 0; i < n; ++i) out[i] = v;
  }
}

// Runs r in [r0, r1) of n elements each: BinaryRunLoop of a + r * ra, b + r * rb into out + r * n. One call for
// many short runs (a channels-last tensor times a per-channel scale: 12544 runs of 32 values in EfficientNet-B0,
// where a call and an odometer step per run took 0.135 ms against 0.059 in one call, Zen 4).
template <class EA, class EB, class EO, class Fn>
__attribute__((always_inline)) inline void BinaryRowsLoop(const typename EA::Storage* a, int64_t ra, int64_t sa,
                                                          const typename EB::Storage* b, int64_t rb, int64_t sb,
                                                          typename EO::Storage* out, int64_t r0, int64_t r1,
                                                          int64_t n, const Fn& fn) {
  for (int64_t r = r0; r < r1; ++r) BinaryRunLoop<EA, EB, EO>(a + r * ra, sa, b + r * rb, sb, out + r * n, n, fn);
}
template <class EA, class EB, class EO, class Fn>
PTQ_TARGET_AVX2 void BinaryRowsAvx2(const typename EA::Storage* a, int64_t ra, int64_t sa,
                                    const typename EB::Storage* b, int64_t rb, int64_t sb,
                                    typename EO::Storage* out, int64_t r0, int64_t r1, int64_t n, const Fn& fn) {
  BinaryRowsLoop<EA, EB, EO>(a, ra, sa, b, rb, sb, out, r0, r1, n, fn);
}
template <class EA, class EB, class EO, class Fn>
PTQ_TARGET_AVX512 void BinaryRowsAvx512(const typename EA::Storage* a, int64_t ra, int64_t sa,
                                        const typename EB::Storage* b, int64_t rb, int64_t sb,
                                        typename EO::Storage* out, int64_t r0, int64_t r1, int64_t n, const Fn& fn) {
  BinaryRowsLoop<EA, EB, EO>(a, ra, sa, b, rb, sb, out, r0, r1, n, fn);
}
template <class EA, class EB, class EO, class Fn>
void BinaryRows(const typename EA::Storage* a, int64_t ra, int64_t sa, const typename EB::Storage* b, int64_t rb,
                int64_t sb, typename EO::Storage* out, int64_t r0, int64_t r1, int64_t n, const Fn& fn) {
  if constexpr (std::is_same<typename EA::Storage, float>::value) {
    if (UseAvx512Clone<typename EB::Storage, typename EO::Storage>()) {
      BinaryRowsAvx512<EA, EB, EO>(a, ra, sa, b, rb, sb, out, r0, r1, n, fn);
      return;
    }
    if (UseAvx2Clone<typename EB::Storage, typename EO::Storage>()) {
      BinaryRowsAvx2<EA, EB, EO>(a, ra, sa, b, rb, sb, out, r0, r1, n, fn);
      return;
    }
  }
  BinaryRowsLoop<EA, EB, EO>(a, ra, sa, b, rb, sb, out, r0, r1, n, fn);
}

// One run: out[i] = Store(fn(Load(a[i*sa]), Load(b[i*sb]))) for i < n, on the CPU's widest clone.
template <class EA, class EB, class EO, class Fn>
void BinaryRun(const typename EA::Storage* a, int64_t sa, const typename EB::Storage* b, int64_t sb,
               typename EO::Storage* out, int64_t n, const Fn& fn) {
  BinaryRows<EA, EB, EO>(a, 0, sa, b, 0, sb, out, 0, 1, n, fn);
}

// For a plan of two inputs, the whole output shared between threads: f(a_offset, a_row_stride, b_offset,
// b_row_stride, out_offset, rows, n), whose row r reads a + a_offset + r * a_row_stride (b likewise, each stepping by
// its p.inner_step within the row) and writes the n outputs from out_offset + r * n. Short runs come as spans of rows
// of n = p.inner (no odometer step per run); long ones, and a single run, as pieces of one row.
template <class F>
void ForEachBinarySpan(const BroadcastPlan& p, const F& f) {
  if (p.out_size == 0) return;
  if (!p.outer_dims.empty() && p.inner < 1024) {
    const int64_t n = p.inner;
    int64_t rows = 1;
    for (int64_t d : p.outer_dims) rows *= d;
    ForEachChunk(rows, std::max<int64_t>(1, 1024 / n), ElementwiseThreads(p.out_size), [&](int64_t r0, int64_t r1) {
      ForEachRowSpan(p, r0, r1, [&](int64_t oa, int64_t ob, int64_t ra, int64_t rb, int64_t first, int64_t count) {
        f(oa, ra, ob, rb, first * n, count, n);
      });
    });
    return;
  }
  ForEachRun(p, [&](const int64_t* off, int64_t out_off, int64_t n) {
    f(off[0], int64_t{0}, off[1], int64_t{0}, out_off, int64_t{1}, n);
  });
}

// C = fn(A, B) element-wise with numpy broadcasting; C has EO's type. With reuse_a (A itself, as MapUnary's reuse)
// C is written over A's buffer when A has C's type and shape, else with reuse_b over B's likewise.
template <class EA, class EB, class EO, class Fn>
Tensor BroadcastBinary(const Tensor& a, const Tensor& b, const Fn& fn, const Tensor* reuse_a = nullptr,
                       const Tensor* reuse_b = nullptr) {
  const BroadcastPlan p = PlanBroadcast({&a.shape(), &b.shape()});
  const Tensor* reuse = nullptr;
  if (reuse_a != nullptr && a.dtype() == EO::kType && a.shape() == p.out_shape) reuse = reuse_a;
  if (reuse == nullptr && reuse_b != nullptr && b.dtype() == EO::kType && b.shape() == p.out_shape) reuse = reuse_b;
  Tensor c = reuse != nullptr ? Tensor::FromBuffer(EO::kType, p.out_shape, reuse->buffer())
                              : Tensor::Uninitialized(EO::kType, p.out_shape);
  const auto* pa = a.data<typename EA::Storage>();
  const auto* pb = b.data<typename EB::Storage>();
  auto* pc = c.data<typename EO::Storage>();
  const int64_t sa = p.inner_step[0], sb = p.inner_step[1];
  ForEachBinarySpan(p, [&](int64_t oa, int64_t ra, int64_t ob, int64_t rb, int64_t out, int64_t rows, int64_t n) {
    BinaryRows<EA, EB, EO>(pa + oa, ra, sa, pb + ob, rb, sb, pc + out, 0, rows, n, fn);
  });
  return c;
}

// ---- Old-opset broadcasting -------------------------------------------------------------------
// Binary ops before opset 7 broadcast only when attribute broadcast=1, aligning B's axes with A's
// starting at attribute `axis` (default: B's trailing axes, as numpy).
struct LegacyBroadcast {
  bool enabled = false;
  bool has_axis = false;
  int64_t axis = 0;
};
LegacyBroadcast ReadLegacyBroadcast(const KernelInit& init);
// B reshaped so that numpy broadcasting against A gives the old-opset result; requires
// B's shape to match A's at the aligned axes (or be 1 there).
Tensor AlignLegacyB(const LegacyBroadcast& legacy, const Tensor& a, const Tensor& b, const std::string& op);

// ---- Generic kernels --------------------------------------------------------------------------
// Y = op(X) element-wise for X of one of Types; Y has X's type and shape.
// Op: `template <class T> T operator()(T) const` (a float overload may stand beside it).
template <unsigned Types, class Op>
class UnaryKernel final : public Kernel {
 public:
  UnaryKernel(const KernelInit& init, Op op) : op_type_(init.op_type), op_(op) {}
  void Run(KernelContext& ctx) override {
    const Tensor& x = ctx.required_input(0);
    DispatchType<Types>(x.dtype(), op_type_, "X", [&](auto e) {
      using E = decltype(e);
      ctx.outputs[0] = MapUnary<E, E>(x, op_, ctx.Reusable(0));
    });
  }

 private:
  std::string op_type_;
  Op op_;
};

template <unsigned Types, class Op>
std::unique_ptr<Kernel> MakeUnaryKernel(const KernelInit& init, Op op = Op{}) {
  return std::make_unique<UnaryKernel<Types, Op>>(init, op);
}

// C = op(A, B) with numpy broadcasting, A and B of the same type from Types; C has that type, or
// bool when kBoolOut (comparisons). Before opset 7 the broadcast/axis attributes are honoured.
template <unsigned Types, class Op, bool kBoolOut = false>
class BinaryKernel final : public Kernel {
 public:
  BinaryKernel(const KernelInit& init, Op op)
      : op_type_(init.op_type), op_(op), legacy_(ReadLegacyBroadcast(init)) {}
  void Run(KernelContext& ctx) override {
    const Tensor& a = ctx.required_input(0);
    const Tensor& b = ctx.required_input(1);
    PTQ_ENFORCE(a.dtype() == b.dtype(), op_type_, ": inputs 'A' and 'B' must have the same type, got ",
                DataTypeName(a.dtype()), " and ", DataTypeName(b.dtype()));
    const Tensor b_aligned = legacy_.enabled ? AlignLegacyB(legacy_, a, b, op_type_) : b;
    DispatchType<Types>(a.dtype(), op_type_, "A", [&](auto e) {
      using E = decltype(e);
      using EO = std::conditional_t<kBoolOut, Elem<DataType::kBool>, E>;
      // B realigned for an old opset is a new tensor: only A's buffer may be taken then.
      ctx.outputs[0] = BroadcastBinary<E, E, EO>(a, b_aligned, op_, ctx.Reusable(0),
                                                 legacy_.enabled ? nullptr : ctx.Reusable(1));
    });
  }

 private:
  std::string op_type_;
  Op op_;
  LegacyBroadcast legacy_;
};

template <unsigned Types, class Op, bool kBoolOut = false>
std::unique_ptr<Kernel> MakeBinaryKernel(const KernelInit& init, Op op = Op{}) {
  return std::make_unique<BinaryKernel<Types, Op, kBoolOut>>(init, op);
}

// Y = op(...op(op(X0, X1), X2)..., Xn-1) with numpy broadcasting (Sum, Max, Min); one input is
// passed through. All inputs must have the same type, one of Types.
template <unsigned Types, class Op>
class VariadicKernel final : public Kernel {
 public:
  VariadicKernel(const KernelInit& init, Op op) : op_type_(init.op_type), op_(op) {}
  void Run(KernelContext& ctx) override {
    PTQ_ENFORCE(ctx.num_inputs() >= 1, op_type_, ": needs at least one input");
    const Tensor& first = ctx.required_input(0);
    for (int i = 1; i < ctx.num_inputs(); ++i) {
      const Tensor& x = ctx.required_input(i);
      PTQ_ENFORCE(x.dtype() == first.dtype(), op_type_, ": all inputs must have the same type; input 0 is ",
                  DataTypeName(first.dtype()), ", input ", i, " is ", DataTypeName(x.dtype()));
    }
    DispatchType<Types>(first.dtype(), op_type_, "data_0", [&](auto e) {
      using E = decltype(e);
      Tensor acc = first;
      for (int i = 1; i < ctx.num_inputs(); ++i) acc = BroadcastBinary<E, E, E>(acc, *ctx.inputs[i], op_);
      ctx.outputs[0] = acc;
    });
  }

 private:
  std::string op_type_;
  Op op_;
};

template <unsigned Types, class Op>
std::unique_ptr<Kernel> MakeVariadicKernel(const KernelInit& init, Op op = Op{}) {
  return std::make_unique<VariadicKernel<Types, Op>>(init, op);
}

}  // namespace ptq
