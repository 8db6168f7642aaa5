// RewriteModel: refusals, opset conversion, Gemm canonicalisation, the plan, the passes, validation.
#include "rewrite/rewriter.h"

#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>
#include <onnx/version_converter/convert.h>

#include <set>

#include "rewrite/check_input_model.h"
#include "rewrite/equalize_conv_pairs.h"
#include "rewrite/passes.h"
#include "rewrite/quant_plan.h"
#include "rewrite/rewrite_graph.h"
#include "rewrite/smooth_matmul_inputs.h"
#include "runtime/error.h"
#include "runtime/model_checker.h"
#include "runtime/model_cleanup.h"
#include "runtime/model_io.h"

namespace ptq {
namespace {

constexpr int64_t kMinOpset = 13;

int64_t DefaultOpset(const onnx::ModelProto& m) {
  for (const auto& o : m.opset_import()) {
    if (o.domain().empty() || o.domain() == "ai.onnx") return o.version();
  }
  return 1;
}

void RefuseQuantized(const onnx::ModelProto& m) {
  static const std::set<std::string> kQuantOps = {"QuantizeLinear", "DequantizeLinear", "QLinearMatMul", "QLinearConv",
                                                  "MatMulInteger", "ConvInteger", "DynamicQuantizeLinear"};
  for (const auto& n : m.graph().node()) {
    if (kQuantOps.count(n.op_type())) {
      ThrowInputError("the model is already quantized (node '", n.name(), "' is ", n.op_type(),
                      "); give ptq the float model");
    }
  }
}

void RefuseForeignTable(const onnx::ModelProto& m, const QuantTable& table) {
  std::set<std::string> names;
  for (const auto& t : m.graph().initializer()) names.insert(t.name());
  for (const auto& v : m.graph().input()) names.insert(v.name());
  for (const auto& n : m.graph().node()) {
    for (const auto& o : n.output()) names.insert(o);
  }
  for (const auto& kv : table.tensors) {
    if (names.count(kv.first)) return;
  }
  ThrowInputError("the calibration table names none of the model's tensors: it was made for another model");
}

// Initializers that the version converter does not need and would copy (into its IR and back), or
// lose (it drops external data references): more than 1 KiB, or external.
bool SetAsideForConversion(const onnx::TensorProto& t) {
  return t.data_location() == onnx::TensorProto::EXTERNAL || t.ByteSizeLong() > 1024;
}

// ONNX's version converter, run with the large initializers set aside (only name, type and dims go
// through it) and put back afterwards by name.
void ConvertOpset(onnx::ModelProto* model, int64_t have, int64_t to) {
  std::map<std::string, onnx::TensorProto> aside;
  for (auto& t : *model->mutable_graph()->mutable_initializer()) {
    if (!SetAsideForConversion(t)) continue;
    onnx::TensorProto header;
    header.set_name(t.name());
    header.set_data_type(t.data_type());
    *header.mutable_dims() = t.dims();
    aside[t.name()] = std::move(t);
    t = std::move(header);
  }
  try {
    *model = onnx::version_conversion::ConvertVersion(*model, static_cast<int>(to));
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    ThrowInputError("converting the model from opset ", have, " to ", to, " failed: ", e.what());
  }
  for (auto& t : *model->mutable_graph()->mutable_initializer()) {
    const auto it = aside.find(t.name());
    if (it != aside.end()) t = std::move(it->second);
  }
}

// The types and ranks calibration observed (of every tensor it saw run), written into value_info for
// tensors the model does not describe, so that the version converter (whose Softmax 12 -> 13 adapter
// needs the input's rank) works on exports whose shapes static inference cannot find. Dimensions are left unknown: only ranks are
// claimed, and value_info is rebuilt after the rewrite anyway.
void AddObservedRanks(onnx::ModelProto* m, const QuantTable& table) {
  std::set<std::string> known;
  for (const auto& v : m->graph().value_info()) known.insert(v.name());
  for (const auto& v : m->graph().input()) known.insert(v.name());
  for (const auto& v : m->graph().output()) known.insert(v.name());
  for (const auto& t : m->graph().initializer()) known.insert(t.name());
  std::map<std::string, ObservedTensor> observed = table.observed;
  for (const auto& [name, q] : table.tensors) {  // tables without 'observed': the quantized tensors (float)
    if (!q.shape.empty()) observed.emplace(name, ObservedTensor{DataType::kFloat, q.shape});
  }
  for (const auto& [name, t] : observed) {
    if (known.count(name) || t.dtype == DataType::kUndefined) continue;
    auto* v = m->mutable_graph()->add_value_info();
    v->set_name(name);
    auto* tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(static_cast<int32_t>(t.dtype));
    for (size_t d = 0; d < t.shape.size(); ++d) tt->mutable_shape()->add_dim();
  }
}

// The plan's readers of each quantized tensor, the float ones split by what the emitted model gives
// them: the tensor itself, or a DequantizeLinear's output of that name (the 8-bit values).
std::map<std::string, TensorReaders> ReadersByForm(const QuantPlan& plan, const onnx::GraphProto& out) {
  std::set<std::string> dequantized;
  for (const auto& n : out.node()) {
    if (n.op_type() == "DequantizeLinear") dequantized.insert(n.output(0));
  }
  std::map<std::string, TensorReaders> readers;
  for (const auto& [t, int8] : plan.int8_readers) {
    TensorReaders& r = readers[t];
    r.int8 = int8;
    const auto f = plan.float_readers.find(t);
    if (f != plan.float_readers.end()) (dequantized.count(t) ? r.dequantized : r.float_values) = f->second;
  }
  return readers;
}

}  // namespace

std::string ValidateModel(const onnx::ModelProto& model, const std::string& model_dir) {
  try {
    CheckModel(model, model_dir);
    onnx::ModelProto copy = CopyForShapeInference(model);
    onnx::ShapeInferenceOptions options{true, 1, false};
    onnx::shape_inference::InferShapes(copy, onnx::OpSchemaRegistry::Instance(), options);
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    throw Error(ErrorKind::kInternal, StrCat("the rewritten model is not valid ONNX: ", e.what()));
  }
  return "onnx::checker::check_model and strict shape/type inference (ONNX 1.12, opsets up to 17) passed";
}

onnx::ModelProto RewriteModel(const onnx::ModelProto& input, const std::string& model_dir, const QuantTable& table,
                              const QuantizationOptions& config, const std::map<std::string, std::string>& metadata,
                              RewriteInfo* info) {
  return RewriteModel(onnx::ModelProto(input), model_dir, table, config, metadata, info);
}

onnx::ModelProto RewriteModel(onnx::ModelProto&& model, const std::string& model_dir, const QuantTable& table0,
                              const QuantizationOptions& config, const std::map<std::string, std::string>& metadata,
                              RewriteInfo* info, ExternalDataWriter* data) {
  RefuseQuantized(model);
  RefuseForeignTable(model, table0);
  CleanUpModel(&model, model_dir);  // the graph calibration ran (runtime/model_cleanup.h)
  // Equalized and smoothed as calibration's model was (cli/prepared_model.h): the table describes that model.
  const int pairs = table0.equalized ? EqualizeConvPairs(&model, model_dir) : 0;
  std::vector<std::string> notes;
  if (config.cross_layer_equalization != table0.equalized) {
    notes.push_back(std::string("quantization.cross_layer_equalization is ") + (config.cross_layer_equalization ? "on" : "off") +
                    " but the calibration table was made " + (table0.equalized ? "on the equalized model" : "without it") +
                    ": the rewrite follows the table");
  }
  for (const auto& [name, o] : config.overrides) {
    if (table0.smoothing.count(name)) {
      ThrowUsageError("quantization.overrides.", name, ": the calibration table smooths this tensor (SmoothQuant), so its values ",
                      "are no longer those the override's range or scale was written for; override '", name,
                      "/smoothed' or calibrate without quantization.smoothquant");
    }
  }
  const std::map<std::string, std::string> smoothed = ApplySmoothing(&model, model_dir, table0.smoothing);
  CheckInputModel(model, model_dir, table0);
  const int64_t target = std::max<int64_t>({kMinOpset, config.opset, 0});
  const int64_t have = DefaultOpset(model);
  if (have < target || (config.opset != 0 && have != config.opset)) {
    AddObservedRanks(&model, table0);
    ConvertOpset(&model, have, config.opset != 0 ? config.opset : target);
  }
  QuantTable table = table0;
  RewriteGraph g(&model);  // takes the initializers: the float weights are held once, in g
  g.set_model_dir(model_dir);
  g.set_data_writer(data);
  CanonicalizeGemm(&g, config, &table);
  const QuantPlan plan = MakeQuantPlan(g, model, table, config);
  RunRewritePasses(&g, plan, config.format);
  onnx::ModelProto out = std::move(model);
  g.WriteTo(&out);
  for (const auto& [k, v] : metadata) {
    auto* p = out.add_metadata_props();
    p->set_key(k);
    p->set_value(v);
  }
  const std::string out_dir = data ? data->folder() : model_dir;
  if (info) {
    info->skipped = plan.skipped;
    info->warnings = plan.warnings;
    info->warnings.insert(info->warnings.end(), notes.begin(), notes.end());
    info->bias_corrected = plan.bias_corrected;
    info->bias_not_corrected = plan.bias_not_corrected;
    info->equalized_pairs = pairs;
    info->smoothed = smoothed;
    info->quantized_by = plan.output_of;
    std::set<std::string> produced;
    for (const auto& n : out.graph().node()) produced.insert(n.output().begin(), n.output().end());
    for (const auto& [int8, twin] : g.twins()) {
      if (produced.count(int8)) info->twins[int8] = twin;
    }
    for (const auto& n : out.graph().node()) ++info->op_counts[n.op_type()];
    info->readers = ReadersByForm(plan, out.graph());
    info->checked = ValidateModel(out, out_dir);
  } else {
    ValidateModel(out, out_dir);
  }
  return out;
}

}  // namespace ptq
