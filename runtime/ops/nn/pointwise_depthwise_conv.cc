// ptq.fused PointwiseDepthwiseConv: checks the shapes, packs W1 (whole and by blocks of columns), runs the kernel.
#include "runtime/ops/nn/pointwise_depthwise_conv.h"

#include "runtime/activation_fusion.h"
#include "runtime/cpu_features.h"
#include "runtime/kernels/conv/conv_geometry.h"
#include "runtime/kernels/conv/depthwise_conv.h"
#include "runtime/kernels/conv/pointwise_depthwise_nhwc.h"
#include "runtime/ops/math/elementwise_chain.h"
#include "runtime/ops/nn/conv_activation.h"

namespace ptq {
namespace {

// A FusedConv activation from attributes `min`, `max` and `silu` of the node, and its element-wise chain (attributes
// after `chain`): the clamp in the GEMM's store, then `finish` (the SiLU with the Silu kernel's bits, the chain).
struct Activation {
  GemmEpilogue<float> clamp;
  FloatRowFinish finish;  // empty without a SiLU or a chain
};

Activation ReadActivation(const Attributes& attrs, const char* min, const char* max, const char* silu,
                          const std::string& chain) {
  Activation a;
  if (attrs.Has(min)) {
    a.clamp.clamp = true;
    a.clamp.lo = attrs.GetFloat(min, 0.0f);
    a.clamp.hi = attrs.GetFloat(max, 0.0f);
  }
  ConvActivation after;  // the SiLU and the chain
  after.silu = attrs.GetInt(silu, 0) != 0;
  PTQ_ENFORCE(!(after.silu && a.clamp.clamp), "PointwiseDepthwiseConv has both a clamp and ", silu);
  if (attrs.Has(chain + "ops")) after.chain = ChainF32(ElementwiseChainSteps(attrs, "PointwiseDepthwiseConv", chain));
  if (after.silu || !after.chain.empty()) {
    a.finish = [after](float* y, int64_t n) { FinishActivation(after, y, n); };
  }
  return a;
}

class PointwiseDepthwiseConvKernel final : public Kernel {
 public:
  explicit PointwiseDepthwiseConvKernel(const KernelInit& init)
      : attrs_(ReadConvAttributes(*init.attrs)),
        pointwise_(ReadActivation(*init.attrs, kPointwiseActivationMin, kPointwiseActivationMax,
                                  kPointwiseActivationSilu, kPointwiseActivationChainPrefix)),
        depthwise_(ReadActivation(*init.attrs, kActivationMin, kActivationMax, kActivationSilu,
                                  kActivationChainPrefix)) {
    PTQ_ENFORCE(GetCpuFeatures().avx2_fma, "PointwiseDepthwiseConv needs a CPU with AVX2 and FMA");
    const Tensor* w1 = init.const_inputs.size() > 1 ? init.const_inputs[1] : nullptr;
    const Tensor* w2 = init.const_inputs.size() > 3 ? init.const_inputs[3] : nullptr;
    PTQ_ENFORCE(w1 && w2, "PointwiseDepthwiseConv's weights 'W1' and 'W2' must be constants");
    PTQ_ENFORCE(w1->dtype() == DataType::kFloat && w1->rank() == 4 && w1->dim(2) == 1 && w1->dim(3) == 1,
                "input 'W1' has shape ", ShapeToString(w1->shape()), " and type ", DataTypeName(w1->dtype()),
                "; expected float32 [E, C, 1, 1]");
    PTQ_ENFORCE(w2->dtype() == DataType::kFloat && w2->rank() == 4 && w2->dim(0) == w1->dim(0) && w2->dim(1) == 1,
                "input 'W2' has shape ", ShapeToString(w2->shape()), " and type ", DataTypeName(w2->dtype()),
                "; expected float32 [", w1->dim(0), ", 1, KH, KW]");
    // W1 [E, C] is B^T of the GEMM [positions, C] x [C, E].
    w1_ = PackF32B(true, w1->dim(1), w1->dim(0), w1->data<float>(), w1->dim(1));
  }

  void Run(KernelContext& ctx) override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& w2 = ctx.required_input(3);
    const Tensor* b1 = ctx.input(2);
    const Tensor* b2 = ctx.input(4);
    const int64_t E = w1_.N, C = w1_.K;
    PTQ_ENFORCE(x.dtype() == DataType::kFloat && x.rank() == 4 && x.dim(3) == C, "input 'X' has shape ",
                ShapeToString(x.shape()), " and type ", DataTypeName(x.dtype()), "; expected float32 [N, H, W, ", C,
                "]");
    for (const Tensor* b : {b1, b2}) {
      PTQ_ENFORCE(!b || (b->dtype() == DataType::kFloat && b->size() == E), "a bias has shape ",
                  ShapeToString(b ? b->shape() : Shape{}), "; expected float32 [", E, "]");
    }
    const ConvGeometry& g = Geometry(x.shape(), w2.shape());
    PTQ_ENFORCE(IsDepthwise(g) && g.out_channels == E, "PointwiseDepthwiseConv's second convolution is not depthwise");
    PointwiseStage pw;
    pw.w = &w1_;
    pw.epilogue = pointwise_.clamp;
    pw.epilogue.col_bias = b1 ? b1->data<float>() : nullptr;
    pw.finish = pointwise_.finish ? &pointwise_.finish : nullptr;
    DepthwiseStage dw;
    dw.w = w2.data<float>();
    dw.bias = b2 ? b2->data<float>() : nullptr;
    dw.clamp = depthwise_.clamp;
    dw.finish_row = depthwise_.finish ? &depthwise_.finish : nullptr;
    PackBlocks(PointwiseDepthwiseChannelBlocks(g, C), ctx.required_input(1));
    Tensor y = Tensor::Uninitialized(DataType::kFloat, g.output_shape());
    PointwiseDepthwiseNhwcF32(x.data<float>(), C, pw, dw, g, blocks_, blocks_w_, y.data<float>());
    ctx.outputs[0] = std::move(y);
  }

 private:
  // The depthwise geometry over the expanded tensor [N, H, W, E], resolved once per input shape.
  const ConvGeometry& Geometry(const Shape& x, const Shape& w2) {
    if (x != x_shape_) {
      const Shape expanded = {x[0], x[1], x[2], w1_.N};
      geometry_ = ResolveConvGeometryChannelsLast(attrs_, expanded, w2);
      x_shape_ = x;
    }
    return geometry_;
  }

  // W1's columns packed block by block for `blocks` (repacked only when the blocks change: another thread count
  // or batch).
  void PackBlocks(const std::vector<int64_t>& blocks, const Tensor& w1) {
    if (blocks == blocks_) return;
    blocks_w_.clear();
    const int64_t C = w1_.K;
    for (int64_t b = 0, c0 = 0; b < static_cast<int64_t>(blocks.size()); c0 += blocks[static_cast<size_t>(b)], ++b) {
      blocks_w_.push_back(PackF32B(true, C, blocks[static_cast<size_t>(b)], w1.data<float>() + c0 * C, C));
    }
    blocks_ = blocks;
  }

  ConvAttributes attrs_;
  Activation pointwise_, depthwise_;
  PackedF32B w1_;
  std::vector<int64_t> blocks_;  // PointwiseDepthwiseChannelBlocks of the last run
  std::vector<PackedF32B> blocks_w_;
  Shape x_shape_;
  ConvGeometry geometry_;
};

}  // namespace

std::unique_ptr<Kernel> MakePointwiseDepthwiseConv(const KernelInit& init) {
  return MakeKernel<PointwiseDepthwiseConvKernel>(init);
}

}  // namespace ptq
