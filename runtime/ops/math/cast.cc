// Cast kernel: converts every element to the type named by attribute 'to' (strings unsupported).
#include "runtime/ops/math/cast.h"

#include <cctype>
#include <type_traits>

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

template <class E>
constexpr bool kIsFloatElem = std::is_floating_point<typename E::Compute>::value;
template <class E>
constexpr bool kIsInt4Elem = E::kType == DataType::kInt4 || E::kType == DataType::kUint4;

// One element from ES to ED (both Elem traits), in their Compute types:
//   to bool: v != 0 (NaN is true);
//   to float types: nearest value (float16/bfloat16 round to nearest even; double to float16
//     rounds twice, via float32);
//   float to integer: truncated toward zero, saturated at the target's range, NaN gives 0;
//   integer to integer: two's-complement wrap (as static_cast), except to int4/uint4, which
//     saturate at [-8, 7] / [0, 15] from every source type.
template <class ES, class ED>
typename ED::Compute CastValue(typename ES::Compute v) {
  using D = typename ED::Compute;
  using S = typename ES::Compute;
  if constexpr (std::is_same<D, bool>::value) {
    return v != S(0);
  } else if constexpr (kIsFloatElem<ED>) {
    return static_cast<D>(v);
  } else if constexpr (kIsInt4Elem<ED>) {
    const int64_t lo = ED::kType == DataType::kInt4 ? -8 : 0;
    const int64_t hi = ED::kType == DataType::kInt4 ? 7 : 15;
    int64_t w;
    if constexpr (kIsFloatElem<ES>) {
      w = SaturateCast<int64_t>(v);
    } else if constexpr (std::is_unsigned<S>::value) {
      w = v > static_cast<S>(hi) ? hi : static_cast<int64_t>(v);
    } else {
      w = static_cast<int64_t>(v);
    }
    return static_cast<D>(w < lo ? lo : (w > hi ? hi : w));
  } else if constexpr (kIsFloatElem<ES>) {
    return SaturateCast<D>(v);
  } else {
    return static_cast<D>(v);
  }
}

// The target type from attribute 'to': an int (TensorProto.DataType) from opset 6, a name
// ("FLOAT", "INT64", ...) before.
DataType ReadTargetType(const KernelInit& init) {
  const auto& all = init.attrs->all();
  const auto it = all.find("to");
  PTQ_ENFORCE(it != all.end(), "Cast: attribute 'to' is missing");
  if (it->second.kind == AttributeValue::Kind::kString) {
    std::string name = it->second.s;
    for (char& ch : name) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    static const std::pair<const char*, DataType> kNames[] = {
        {"FLOAT", DataType::kFloat},   {"UINT8", DataType::kUint8},       {"INT8", DataType::kInt8},
        {"UINT16", DataType::kUint16}, {"INT16", DataType::kInt16},       {"INT32", DataType::kInt32},
        {"INT64", DataType::kInt64},   {"BOOL", DataType::kBool},         {"FLOAT16", DataType::kFloat16},
        {"DOUBLE", DataType::kDouble}, {"UINT32", DataType::kUint32},     {"UINT64", DataType::kUint64},
        {"BFLOAT16", DataType::kBfloat16}};
    for (const auto& entry : kNames) {
      if (name == entry.first) return entry.second;
    }
    ThrowInputError("Cast: attribute 'to' is '", it->second.s, "', which is not a supported type name");
  }
  const int64_t code = init.attrs->GetInt("to", 0);
  const DataType t = static_cast<DataType>(code);
  PTQ_ENFORCE(IsSupportedDataType(t) && t != DataType::kUndefined, "Cast: attribute 'to' = ", code, " (",
              DataTypeName(t), ") is not a supported target type");
  return t;
}

class CastKernel final : public Kernel {
 public:
  explicit CastKernel(const KernelInit& init) : to_(ReadTargetType(init)) {}
  void Run(KernelContext& ctx) override { ctx.outputs[0] = CastTensor(ctx.required_input(0), to_); }

 private:
  DataType to_;
};

}  // namespace

Tensor CastTensor(const Tensor& x, DataType to) {
  if (x.dtype() == to) return x;
  Tensor y;
  DispatchType<kAllTypes>(x.dtype(), "Cast", "input", [&](auto es) {
    DispatchType<kAllTypes>(to, "Cast", "attribute 'to'", [&](auto ed) {
      using ES = decltype(es);
      using ED = decltype(ed);
      y = MapUnary<ES, ED>(x, [](typename ES::Compute v) { return CastValue<ES, ED>(v); });
    });
  });
  return y;
}

std::unique_ptr<Kernel> MakeCast(const KernelInit& init) { return std::make_unique<CastKernel>(init); }

}  // namespace ptq
