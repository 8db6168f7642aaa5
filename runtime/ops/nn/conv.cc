// Conv (and ptq.fused FusedConv, Conv + Relu/Clip/SiLU): depthwise by the direct kernel, 1x1 as one GEMM on
// the input, the rest as (wide) im2col / im2row + GEMM; bias and activation applied as the outputs are stored.
#include "runtime/ops/nn/conv.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "runtime/activation_fusion.h"
#include "runtime/channels_last_layout.h"
#include "runtime/kernels/conv/conv_geometry.h"
#include "runtime/kernels/conv/conv_nhwc_direct.h"
#include "runtime/kernels/conv/depthwise_conv.h"
#include "runtime/kernels/conv/depthwise_nhwc.h"
#include "runtime/kernels/conv/grouped_conv_planes.h"
#include "runtime/kernels/conv/im2col.h"
#include "runtime/kernels/conv/im2row_nhwc.h"
#include "runtime/kernels/conv/wide_im2col.h"
#include "runtime/cpu_features.h"
#include "runtime/kernels/gemm_f32/gemm_f32_avx2.h"
#include "runtime/kernels/gemm_f32/gemm_f32_tile.h"
#include "runtime/kernels/gemm_f32/row_major_gemm.h"
#include "runtime/kernels/grow_only.h"
#include "runtime/kernels/row_finish.h"
#include "runtime/ops/math/elementwise.h"
#include "runtime/ops/math/float_compute.h"
#include "runtime/ops/nn/conv_activation.h"
#include "runtime/ops/tensor/scratch_buffer.h"
#include "runtime/threading.h"

namespace ptq {
namespace {

int64_t Product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

// True when every output position reads exactly the input position it sits at (1x1 kernel,
// stride 1, no padding), so the input itself is the im2col matrix.
bool IsPointwise(const SlidingWindow& w) {
  for (size_t i = 0; i < w.rank(); ++i) {
    if (w.kernel[i] != 1 || w.strides[i] != 1 || w.pads_begin[i] != 0 || w.pads_end[i] != 0) return false;
  }
  return true;
}

// Stride 1, 1 or 2 spatial dims: per image and group, the rows of a wide im2col [C/g * K, OH * EW] as views
// into the padded input (wide_im2col.h), one GEMM reading them in place into wide rows (bias and
// activation applied there), then the OW valid columns of each row copied into y.
template <class T>
void ConvWide(const ConvGeometry& g, const T* x, const T* w, const T* bias, GemmEpilogue<T> epi, T* y,
              ScratchBuffer& scratch) {
  const int64_t cg = g.in_channels_per_group(), mg = g.out_channels_per_group();
  const int64_t in_size = Product(g.window.input), out_size = Product(g.window.output);
  const int64_t depth = cg * Product(g.window.kernel);
  const int64_t OW = g.window.output.back(), OH = out_size / OW;
  const WideLayout l = MakeWideLayout(cg, g.window);
  T* padded = scratch.Get<T>(static_cast<size_t>(l.padded_size + mg * l.cols));
  T* wide = padded + l.padded_size;
  std::vector<const T*> rows(static_cast<size_t>(depth));
  std::vector<T> copy;  // B copied where the GEMM cannot read rows in place
  for (int64_t n = 0; n < g.batch; ++n) {
    for (int64_t grp = 0; grp < g.group; ++grp) {
      WideIm2ColRows(x + (n * g.in_channels + grp * cg) * in_size, cg, g.window, l, padded, rows.data());
      epi.row_bias = bias ? bias + grp * mg : nullptr;
      RowMajorGemmRows<T>(mg, l.cols, depth, w + grp * mg * depth, depth, rows.data(), wide, l.cols, epi, copy);
      T* yg = y + (n * g.out_channels + grp * mg) * out_size;
      for (int64_t r = 0; r < mg * OH; ++r) {  // wide row r = (m, oh) holds EW columns, y's holds OW
        std::copy(wide + r * l.padded_w, wide + r * l.padded_w + OW, yg + r * OW);
      }
    }
  }
}

// Any window: per image and group, Y_g [M/g, O] = W_g [M/g, C/g * K] * col_g [C/g * K, O] + bias, then
// the activation, where col_g is X_g itself for a pointwise window and Im2Col(X_g) otherwise.
template <class T>
void ConvIm2Col(const ConvGeometry& g, const T* x, const T* w, const T* bias, GemmEpilogue<T> epi, T* y,
                ScratchBuffer& scratch) {
  const int64_t cg = g.in_channels_per_group(), mg = g.out_channels_per_group();
  const int64_t in_size = Product(g.window.input), out_size = Product(g.window.output);
  const int64_t depth = cg * Product(g.window.kernel);
  const bool pointwise = IsPointwise(g.window);
  T* col = pointwise ? nullptr : scratch.Get<T>(static_cast<size_t>(depth * out_size));
  for (int64_t n = 0; n < g.batch; ++n) {
    for (int64_t grp = 0; grp < g.group; ++grp) {
      const T* xg = x + (n * g.in_channels + grp * cg) * in_size;
      if (!pointwise) Im2Col(xg, cg, g.window, col);
      epi.row_bias = bias ? bias + grp * mg : nullptr;
      RowMajorGemm<T>(false, false, mg, out_size, depth, T(1), w + grp * mg * depth, depth, pointwise ? xg : col,
                      out_size, T(0), y + (n * g.out_channels + grp * mg) * out_size, out_size, epi);
    }
  }
}

// The weights of a channels-last convolution as the GEMM's B of each group: kn [K, M / group] per group
// (PackConvWeightsNhwc), or, for constant float32 weights on AVX2 CPUs, packed once per group.
template <class T>
struct NhwcWeights {
  const T* kn = nullptr;
  const std::vector<PackedF32B>* packed = nullptr;
  bool finite = false;  // packed holds no infinity or NaN (ConvNhwcDirectF32's finite_weights)
};

// Channels last (x [N, H, W, C], y [N, OH, OW, M]; 2 spatial dims): depthwise windows by the direct
// kernel; a pointwise window of one group is one GEMM on x itself; packed weights of the windows
// ConvNhwcDirectApplies takes (up to 5 x 5, at least 8 channels per group; deeper than 256 only with stride 1 and
// up to 1 M weights a group) read their taps in place (ConvNhwcDirectF32); otherwise weights larger than the cache
// go by K slices of im2row columns, and the rest per image and block of output lines, Im2RowNhwc rows of every
// group, each group's times its weights into its columns of y. The bias is added along columns and the clamp
// applied as each output is stored; `finish` (a SiLU, an element-wise chain; or nullptr) in one more pass over each
// block of outputs while it is in cache.
template <class T>
void ConvNhwc(const ConvGeometry& g, const T* x, const T* w, const NhwcWeights<T>& wts, const T* bias,
              const GemmEpilogue<T>& epi, const RowFinish<T>* finish, T* y, ScratchBuffer& scratch) {
  if (g.group > 1 && IsDepthwise(g)) {
    DepthwiseConvNhwc(x, w, bias, g, y, epi, finish);
    return;
  }
  const int64_t cg = g.in_channels_per_group(), mg = g.out_channels_per_group(), C = g.in_channels;
  const int64_t M = g.out_channels, K = cg * Product(g.window.kernel);
  const int64_t in_size = Product(g.window.input), OH = g.window.output[0], OW = g.window.output[1];
  // out [rows, mg] (row stride M) = a [rows, K] (row stride lda) * B of group grp, + the epilogue with
  // the group's bias and (when epi.sum is set) the residual read at out's place in it. Threads call this
  // at once: each builds its own epilogue.
  // With packed weights, k_end >= 0 computes only the K range [k_begin, k_end) of the product, a holding those
  // columns (GemmF32Avx2Packed).
  auto gemm = [&](int64_t grp, int64_t rows, const T* a, int64_t lda, T* out, int64_t k_begin = 0,
                  int64_t k_end = -1) {
    GemmEpilogue<T> e = epi;
    e.col_bias = bias != nullptr ? bias + grp * mg : nullptr;
    e.sum = epi.sum != nullptr ? epi.sum + (out - y) : nullptr;
    e.ld_sum = M;
    if constexpr (std::is_same<T, float>::value) {
      if (wts.packed != nullptr) {
        GemmF32Avx2Packed(rows, 1.0f, a, lda, (*wts.packed)[static_cast<size_t>(grp)], 0.0f, out, M, BestF32Kernels(), e,
                          k_begin, k_end);
        return;
      }
    }
    RowMajorGemm<T>(false, false, rows, mg, K, T(1), a, lda, wts.kn + grp * K * mg, mg, T(0), out, M, e);
  };
  // The finishing pass over rows [r0, r1) of y (output positions), columns of group grp.
  auto activate = [&](int64_t grp, int64_t r0, int64_t r1) {
    if (finish == nullptr) return;
    if (g.group == 1) {
      (*finish)(y + r0 * M, (r1 - r0) * M);
      return;
    }
    for (int64_t r = r0; r < r1; ++r) (*finish)(y + r * M + grp * mg, mg);
  };
  bool own_gemm = false;
  if constexpr (std::is_same<T, float>::value) own_gemm = GetCpuFeatures().avx2_fma;
  constexpr int64_t kParallelMacs = int64_t{1} << 19;
  if (g.group == 1 && IsPointwise(g.window)) {
    const int64_t rows = g.batch * in_size;
    if (finish == nullptr || !own_gemm) {  // Eigen's GEMM gets all rows at once: its results depend on the row count
      gemm(0, rows, x, C, y);
      activate(0, 0, rows);
      return;
    }
    // With the activation: blocks of rows, each multiplied and activated while in cache by one thread (ptq's
    // GEMM computes a row the same whatever rows share the call). Blocks are smaller when threads share
    // them, down to 2 tiles of rows, for kUnitsPerThread blocks per thread.
    const int threads = ThreadsForWork(rows * K * M, kParallelMacs);
    int64_t block = std::max<int64_t>(64, (int64_t{1} << 16) / M);
    if (threads > 1) block = std::min(block, std::max<int64_t>(2 * kF32TileRows, ItemsPerUnit(rows, threads)));
    const int64_t blocks = (rows + block - 1) / block;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t r0 = b * block, r1 = std::min(rows, r0 + block);
      gemm(0, r1 - r0, x + r0 * C, C, y + r0 * M);
      activate(0, r0, r1);
    }
    return;
  }
  // Packed weights, at least 8 channels per group (or a stem's kernel rows): no im2row matrix. Groups of 16
  // channels (RegNet's) read copies of their input rows instead of the image in place.
  if constexpr (std::is_same<T, float>::value) {
    const bool planes = wts.packed != nullptr && GroupedConvPlanesApplies(g);
    if (planes || (wts.packed != nullptr && ConvNhwcDirectApplies(g))) {
      GemmEpilogue<float> e = epi;
      e.col_bias = bias;
      e.ld_sum = M;
      if (planes) {
        GroupedConvPlanesF32(x, *wts.packed, g, e, y, finish);
      } else {
        ConvNhwcDirectF32(x, *wts.packed, g, e, y, finish, wts.finite);
      }
      return;
    }
  }
  // Units of work: (image, block of output lines), each im2row'd for every group at once (one pass over the
  // image) and multiplied group by group by one thread; blocks hold rows of about kRowsBudget values, and
  // enough blocks for every thread when the product is large enough to share (a row's result does not
  // depend on the rows it is computed with).
  constexpr int64_t kRowsBudget = int64_t{1} << 19;
  const int threads = ThreadsForWork(g.batch * OH * OW * K * M, kParallelMacs);
  const int64_t row_len = g.group * K;  // every group's taps x channels
  int64_t lines = std::max<int64_t>(1, std::min(OH, kRowsBudget / std::max<int64_t>(1, OW * row_len)));
  // Constant float weights too large to stay in cache from one block of lines to the next (FCN's 3x3
  // convolutions of 2048 and 512 channels): per image and block of positions, im2row a slice of K columns
  // at a time and multiply it by those rows of the packed weights, which are then read once per block of
  // positions instead of once per few lines; the same bits (GemmF32Avx2Packed over K ranges).
  constexpr int64_t kLargeWeights = int64_t{1} << 21;  // floats (8 MiB)
  if constexpr (std::is_same<T, float>::value) {
    if (g.group == 1 && wts.packed != nullptr && K * M > kLargeWeights && lines < OH) {
      const int64_t kc = F32GemmKBlock(K), positions = OH * OW;
      const int64_t block = std::min(positions, kRowsBudget / kc);
      const int64_t slice = std::min(K, std::max<int64_t>(1, kRowsBudget / (block * kc)) * kc);
      float* rows = scratch.Get<float>(static_cast<size_t>(block * slice));
      for (int64_t n = 0; n < g.batch; ++n) {
        for (int64_t p0 = 0; p0 < positions; p0 += block) {
          const int64_t p1 = std::min(positions, p0 + block);
          for (int64_t k0 = 0; k0 < K; k0 += slice) {
            const int64_t k1 = std::min(K, k0 + slice);
            // The slice's rows by all threads, in parts of positions: written by one thread, the others waited
            // (the copies are 1.5% of FCN's time on one thread, in perf).
            const int64_t parts = threads > 1 ? int64_t{threads} * kUnitsPerThread : 1;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
            for (int64_t q = 0; q < parts; ++q) {
              const int64_t a = p0 + (p1 - p0) * q / parts, b = p0 + (p1 - p0) * (q + 1) / parts;
              if (a < b) Im2RowNhwcSlice(x + n * in_size * C, C, g.window, a, b, k0, k1, rows + (a - p0) * (k1 - k0));
            }
            gemm(0, p1 - p0, rows, k1 - k0, y + (n * positions + p0) * M, k0, k1);
          }
          activate(0, n * positions + p0, n * positions + p1);
        }
      }
      return;
    }
  }
  // Only ptq's AVX2 GEMM computes a row the same whatever the rows beside it (Eigen's blocking depends on
  // the row count): blocks shrink for the threads only there, so any thread count gives the same bits; to
  // kUnitsPerThread per thread. Images too small for that many units of 2 tiles of rows are done a block
  // at a time, the GEMM sharing each block's product between the threads (by columns when it has few rows).
  bool share_units = threads > 1;
  if (own_gemm && threads > 1 && g.batch < threads * kUnitsPerThread) {
    share_units = g.batch * OH * OW >= threads * kUnitsPerThread * 2 * kF32TileRows;
    if (share_units) lines = std::min(lines, ItemsPerUnit(g.batch * OH, threads));
  }
  // Fewer lines than threads (PP-OCR rec's convolutions of 1 x 40 outputs and 4320 taps x channels, 0.19 ms on one
  // thread, took as long on two): each thread im2row's and multiplies its own range of each image's positions.
  if constexpr (std::is_same<T, float>::value) {
    if (own_gemm && share_units && g.group == 1 && g.batch * OH < threads) {
      const int64_t positions = OH * OW, parts = int64_t{threads} * kUnitsPerThread;
#pragma omp parallel for schedule(static) num_threads(threads)
      for (int64_t u = 0; u < g.batch * parts; ++u) {
        const int64_t n = u / parts, q = u % parts;
        const int64_t a = positions * q / parts, b = positions * (q + 1) / parts;
        if (a == b) continue;
        thread_local std::vector<float> rows;
        float* r = GrowTo(rows, (b - a) * K);
        Im2RowNhwcSlice(x + n * in_size * C, C, g.window, a, b, 0, K, r);
        gemm(0, b - a, r, K, y + (n * positions + a) * M);
        activate(0, n * positions + a, n * positions + b);
      }
      return;
    }
  }
  const int64_t blocks = (OH + lines - 1) / lines, units = g.batch * blocks;
  auto run = [&](int64_t u, T* rows) {
    const int64_t n = u / blocks, l0 = u % blocks * lines, l1 = std::min(OH, l0 + lines);
    Im2RowNhwc(x + n * in_size * C, C, g.group, g.window, l0, l1, rows);
    for (int64_t grp = 0; grp < g.group; ++grp) {
      gemm(grp, (l1 - l0) * OW, rows + grp * K, row_len, y + ((n * OH + l0) * OW) * M + grp * mg);
      activate(grp, (n * OH + l0) * OW, (n * OH + l1) * OW);
    }
  };
  if (!share_units) {
    T* rows = scratch.Get<T>(static_cast<size_t>(lines * OW * row_len));
    for (int64_t u = 0; u < units; ++u) run(u, rows);
    return;
  }
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int64_t u = 0; u < units; ++u) {
    thread_local std::vector<T> rows;
    run(u, GrowTo(rows, lines * OW * row_len));
  }
}

// Y = activation(conv(X, W) + B [+ Z]): depthwise windows of 1 or 2 dims by the direct kernel, other
// stride-1 windows of 1 or 2 dims by wide im2col, the rest by im2col (skipped for pointwise windows). The
// activation (a fused Relu or Clip, when act.clamp) is applied as each output is stored; so is the
// residual Z of a channels-last GEMM (otherwise added, then activated, in one more pass).
template <class T>
Tensor ConvTyped(const ConvGeometry& g, const Tensor& x, const Tensor& w, const Tensor* b, const Tensor* z,
                 const ConvActivation& act, const NhwcWeights<T>& wts, ScratchBuffer& scratch) {
  const bool in_gemm = g.channels_last && !(g.group > 1 && IsDepthwise(g)) && z && z->shape() == g.output_shape() &&
                       z->dtype() == x.dtype();
  if (z && !in_gemm) {
    return AddAndActivate(ConvTyped<T>(g, x, w, b, nullptr, ConvActivation{}, wts, scratch), *z, act, "Z");
  }
  PTQ_ENFORCE(!b || b->size() == g.out_channels, "input 'B' has shape ", ShapeToString(b ? b->shape() : Shape{}),
              "; expected [", g.out_channels, "] (one bias per output channel)");
  Tensor y = Tensor::Uninitialized(x.dtype(), g.output_shape());
  const int64_t out_size = Product(g.window.output);
  const T* px = x.data<T>();
  const T* pw = w.data<T>();
  const T* bias = b ? b->data<T>() : nullptr;
  T* py = y.data<T>();
  GemmEpilogue<T> epi;
  epi.clamp = act.clamp;
  epi.lo = static_cast<T>(act.lo);
  epi.hi = static_cast<T>(act.hi);
  if (in_gemm) epi.sum = z->data<T>();
  // After the clamp: the SiLU and the element-wise chain, on each block of outputs.
  RowFinish<T> finish;
  if (act.silu || !act.chain.empty()) finish = [&act](T* p, int64_t n) { FinishActivation(act, p, n); };
  if (g.channels_last) {
    ConvNhwc(g, px, pw, wts, bias, epi, finish ? &finish : nullptr, py, scratch);
    return y;
  }
  if (g.group > 1 && IsDepthwise(g)) {
    for (int64_t i = 0; i < g.batch * g.out_channels; ++i) {
      std::fill(py + i * out_size, py + (i + 1) * out_size, bias ? bias[i % g.out_channels] : T(0));
    }
    DepthwiseConv(px, pw, g, py, epi);
  } else if (!IsPointwise(g.window) && IsWideIm2ColWindow(g.window)) {
    ConvWide(g, px, pw, bias, epi, py, scratch);
  } else {
    ConvIm2Col(g, px, pw, bias, epi, py, scratch);
  }
  if (finish) finish(py, y.size());
  return y;
}

class ConvKernel final : public Kernel {
 public:
  explicit ConvKernel(const KernelInit& init)
      : attrs_(ReadConvAttributes(*init.attrs)), channels_last_(init.attrs->GetInt(kChannelsLast, 0) != 0) {
    // ptq.fused FusedConv: the Relu, Clip or SiLU that read the Conv's output (runtime/activation_fusion.h).
    act_ = ReadConvActivation(*init.attrs, "FusedConv");
    const Tensor* w = init.const_inputs.size() > 1 ? init.const_inputs[1] : nullptr;
    if (w && IsHalfType(w->dtype())) w_widened_ = WidenToFloat(*w);  // once, not per run
    // Channels last: a constant float32 W packed as each group's GEMM B once (depthwise windows read W).
    if (channels_last_ && w && w->dtype() == DataType::kFloat && w->rank() == 4 && attrs_.group >= 1 &&
        w->dim(0) % attrs_.group == 0 && !(attrs_.group > 1 && w->dim(1) == 1 && w->dim(0) == attrs_.group) &&
        GetCpuFeatures().avx2_fma) {
      const Tensor kn = LaidOut<float>(*w);
      const int64_t mg = w->dim(0) / attrs_.group, K = w->size() / w->dim(0);
      for (int64_t grp = 0; grp < attrs_.group; ++grp) {
        w_packed_.push_back(PackF32B(false, K, mg, kn.data<float>() + grp * K * mg, mg));
      }
      const float* wv = w->data<float>();
      w_finite_ = std::all_of(wv, wv + w->size(), [](float v) { return std::isfinite(v); });
    }
  }

  // Y[n, m, o] = B[m] + sum_{c, k} W[m, c, k] * X[n, grp(m) * C/group + c, o * stride - pad_begin + k * dilation]
  // (+ Z[n, m, o], FusedConv's residual input 3), then FusedConv's activation.
  void Run(KernelContext& ctx) override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& w = ctx.required_input(1);
    const Tensor* b = ctx.input(2);
    const Tensor* z = ctx.input(3);
    PTQ_ENFORCE(w.dtype() == x.dtype() && (!b || b->dtype() == x.dtype()) && (!z || z->dtype() == x.dtype()),
                "inputs 'X', 'W', 'B' and 'Z' must have the same type, got ", DataTypeName(x.dtype()), ", ",
                DataTypeName(w.dtype()), b ? ", " + DataTypeName(b->dtype()) : std::string(),
                z ? ", " + DataTypeName(z->dtype()) : std::string());
    PTQ_ENFORCE(act_.chain.empty() || x.dtype() == DataType::kFloat, "an element-wise chain (", kActivationChainPrefix,
                "attributes) needs float32 input 'X', got ", DataTypeName(x.dtype()));
    switch (x.dtype()) {
      case DataType::kFloat: ctx.outputs[0] = Typed<float>(x, w, b, z); break;
      case DataType::kDouble: ctx.outputs[0] = Typed<double>(x, w, b, z); break;
      case DataType::kFloat16:
      case DataType::kBfloat16: {
        const Tensor w_float = w_widened_.empty_value() ? WidenToFloat(w) : w_widened_;
        const Tensor b_float = b ? WidenToFloat(*b) : Tensor();
        const Tensor z_float = z ? WidenToFloat(*z) : Tensor();
        const Tensor y = Typed<float>(WidenToFloat(x), w_float, b ? &b_float : nullptr, z ? &z_float : nullptr);
        ctx.outputs[0] = NarrowFromFloat(y, x.dtype());
        break;
      }
      default:
        ThrowInputError("input 'X' has type ", DataTypeName(x.dtype()),
                        "; Conv supports float32, float64, float16 and bfloat16");
    }
  }

 private:
  template <class T>
  Tensor Typed(const Tensor& x, const Tensor& w, const Tensor* b, const Tensor* z) {
    const ConvGeometry& g = Geometry(x, w);
    NhwcWeights<T> wts;
    if (g.channels_last && !(g.group > 1 && IsDepthwise(g))) {
      if (std::is_same<T, float>::value && !w_packed_.empty()) {  // W is that constant
        wts.packed = &w_packed_;
        wts.finite = w_finite_;
      } else {
        w_run_ = LaidOut<T>(w);
        wts.kn = w_run_.data<T>();
      }
    }
    return ConvTyped<T>(g, x, w, b, z, act_, wts, scratch_);
  }

  // W [M, C/group, KH, KW] as PackConvWeightsNhwc lays it out.
  template <class T>
  Tensor LaidOut(const Tensor& w) const {
    PTQ_ENFORCE(w.rank() == 4 && attrs_.group >= 1 && w.dim(0) % attrs_.group == 0, "input 'W' has shape ",
                ShapeToString(w.shape()), "; expected [M, C / group, KH, KW] with M a multiple of group ", attrs_.group);
    Tensor wt = Tensor::Uninitialized(w.dtype(), {w.size()});
    PackConvWeightsNhwc(w.data<T>(), w.dim(0), w.dim(1), w.dim(2) * w.dim(3), attrs_.group, wt.data<T>());
    return wt;
  }

  // The geometry for these shapes, resolved once per distinct pair of shapes.
  const ConvGeometry& Geometry(const Tensor& x, const Tensor& w) {
    if (x.shape() != x_shape_ || w.shape() != w_shape_) {
      geometry_ = channels_last_ ? ResolveConvGeometryChannelsLast(attrs_, x.shape(), w.shape())
                                 : ResolveConvGeometry(attrs_, x.shape(), w.shape());
      x_shape_ = x.shape();
      w_shape_ = w.shape();
    }
    return geometry_;
  }

  ConvAttributes attrs_;
  bool channels_last_;  // ptq.fused FusedConv of the session's channels-last layout
  ConvActivation act_;
  Tensor w_widened_;  // constant float16/bfloat16 W as float32
  std::vector<PackedF32B> w_packed_;  // channels last: constant float32 W packed as each group's GEMM B
  bool w_finite_ = false;             // w_packed_ holds no infinity or NaN
  Tensor w_run_;                      // channels last: W laid out per run, for a W that is not packed
  Shape x_shape_, w_shape_;
  ConvGeometry geometry_;
  ScratchBuffer scratch_;  // im2col matrix
};

}  // namespace

std::unique_ptr<Kernel> MakeConv(const KernelInit& init) { return MakeKernel<ConvKernel>(init); }

}  // namespace ptq
