// What a model file holds (ptq inspect, and the Python module): ops, weights by type, size on disk,
// opsets, producer, metadata, inputs and outputs, and how much of its MatMul/Gemm/Conv work is integer.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/mac_count.h"

namespace onnx {
class ModelProto;
}

namespace ptq {

// A graph input or output as declared: dims are numbers, symbolic names, or "?" (neither).
struct DeclaredValue {
  std::string name;
  std::string type;  // "float32", "int8", ...; "sequence", "map", "optional" for non-tensors
  bool has_shape = false;
  std::vector<std::string> dims;
};

struct WeightCount {
  int64_t tensors = 0, elements = 0, bytes = 0;  // bytes as stored (4-bit types packed two per byte)
};

struct ModelInspection {
  std::string path;
  int64_t file_bytes = 0;                    // the .onnx file
  std::vector<std::string> external_files;   // external data files (resolved paths), each once
  int64_t external_bytes = 0;                // their sizes on disk
  int64_t ir_version = 0, model_version = 0;
  std::string producer_name, producer_version, domain;
  std::map<std::string, int64_t> opsets;         // domain ("ai.onnx" for the default one) -> version
  std::map<std::string, std::string> metadata;   // metadata_props (ptq writes its provenance there)
  std::vector<DeclaredValue> inputs, outputs;    // inputs: those that are not initializers
  // Nodes by op type ("domain:op" outside ai.onnx), subgraphs (If/Loop/Scan bodies) included.
  std::map<std::string, int64_t> op_counts;
  int64_t nodes = 0;
  // Initializers and Constant nodes (subgraphs included) by element type ("float32", "int8", ...).
  std::map<std::string, WeightCount> weights;
  MacCount macs;
};

// Inspects the .onnx file at `path` without reading its external data (only their sizes). Throws an
// input error naming the file when it cannot be read or parsed, or an external data file is missing or
// outside the model's folder.
ModelInspection InspectModel(const std::string& path);

// Bytes the model takes on disk: the .onnx file at `path` and each external data file `model` (loaded
// from `path`) refers to. Throws as InspectModel.
int64_t ModelBytesOnDisk(const onnx::ModelProto& model, const std::string& path);

// As JSON: the fields above; the MAC section as {"total", "integer", "integer_share" (null without
// MatMul/Gemm/Conv work), "by_op", "assumed_dims" [{"input", "dim", "param", "value"}],
// "inputs_without_shape", "unknown", "subgraph_nodes_not_counted"}.
nlohmann::json InspectionJson(const ModelInspection& m);

// A few aligned sections for the terminal: the model, opsets and producer, inputs and outputs, op
// counts (most frequent first), weights by type, the MAC share with what was assumed, metadata.
std::string RenderInspection(const ModelInspection& m);

}  // namespace ptq
