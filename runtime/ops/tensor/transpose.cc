// Transpose: output dimension k is input dimension perm[k]; the default perm reverses the dimensions.
#include "runtime/ops/tensor/transpose.h"

#include <vector>

#include "runtime/kernels/vector/transpose_2d.h"
#include "runtime/ops/math/elementwise.h"
#include "runtime/ops/tensor/copy_util.h"
#include "runtime/threading.h"

namespace ptq {
namespace {

class Transpose : public Kernel {
 public:
  explicit Transpose(const KernelInit& init) {
    has_perm_ = init.attrs->Has("perm");
    perm_attr_ = init.attrs->GetInts("perm");
  }

  void Run(KernelContext& ctx) override {
    const Tensor& data = ctx.required_input(0);
    const int64_t rank = data.rank();
    std::vector<int64_t> perm = perm_attr_;
    if (!has_perm_) {
      perm.resize(static_cast<size_t>(rank));
      for (int64_t i = 0; i < rank; ++i) perm[static_cast<size_t>(i)] = rank - 1 - i;
    }
    PTQ_ENFORCE(static_cast<int64_t>(perm.size()) == rank, "attribute 'perm' has ", perm.size(),
                " entries for input of rank ", rank);
    std::vector<bool> seen(static_cast<size_t>(rank), false);
    for (int64_t p : perm) {
      PTQ_ENFORCE(p >= 0 && p < rank && !seen[static_cast<size_t>(p)], "attribute 'perm' ",
                  ShapeToString(perm), " is not a permutation of the ", rank, " input dimensions");
      seen[static_cast<size_t>(p)] = true;
    }
    // When the dimensions larger than 1 keep their order, the element order is unchanged: a view.
    Shape out_shape(perm.size());
    int64_t last_moved = -1;
    bool order_kept = true;
    for (size_t k = 0; k < perm.size(); ++k) {
      out_shape[k] = data.dim(perm[k]);
      if (out_shape[k] == 1) continue;
      order_kept = order_kept && perm[k] > last_moved;
      last_moved = perm[k];
    }
    if (order_kept) {
      ctx.outputs[0] = data.Reshaped(out_shape);
      return;
    }
    int64_t outer, rows, cols;
    if (AsBatchedTranspose(data.shape().data(), perm.data(), perm.size(), &outer, &rows, &cols)) {
      Tensor y = Tensor::Uninitialized(data.dtype(), out_shape);
      const size_t elem = ElementSize(data.dtype());
      const auto* src = static_cast<const uint8_t*>(data.raw());
      auto* dst = static_cast<uint8_t*>(y.raw());
      // The matrices (a batch's images, converted to channels last) are shared between threads when large; a
      // lone large matrix (one image) of 1-, 2-, 4- or 8-byte elements by blocks of its columns.
      const int threads = ElementwiseThreads(outer * rows * cols);
      if (outer == 1 && threads > 1 && (elem == 1 || elem == 2 || elem == 4 || elem == 8)) {
        const int64_t parts = int64_t{threads} * kUnitsPerThread;
#pragma omp parallel for schedule(static) num_threads(threads)
        for (int64_t q = 0; q < parts; ++q) {
          Transpose2DColumns(src, rows, cols, elem, cols * q / parts, cols * (q + 1) / parts, dst, rows);
        }
      } else {
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1 && outer > 1)
        for (int64_t o = 0; o < outer; ++o) {
          Transpose2D(src + o * rows * cols * elem, rows, cols, elem, dst + o * rows * cols * elem, rows);
        }
      }
      ctx.outputs[0] = std::move(y);
      return;
    }
    ctx.outputs[0] = Transposed(data, perm);
  }

 private:
  bool has_perm_ = false;
  std::vector<int64_t> perm_attr_;
};

}  // namespace

std::unique_ptr<Kernel> MakeTranspose(const KernelInit& init) { return MakeKernel<Transpose>(init); }

}  // namespace ptq
