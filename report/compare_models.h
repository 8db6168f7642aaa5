// The accuracy report for any pair of models (ptq compare, and the Python module): a float model and a
// quantized one, by ptq or another tool, run in lock-step on the same samples.
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "report/task_config.h"
#include "report/validate.h"
#include "runtime/graph.h"

namespace ptq {

// Opens a pass over the samples: a BatchSource from the first sample on. CompareModels calls it once,
// on the calling thread, and uses the source until it returns false.
using BatchSourceFactory = std::function<BatchSource()>;

struct CompareOptions {
  bool per_layer = true;  // layer rows for the 8-bit tensors MatchTwins pairs with float tensors
  TaskSpecs tasks;        // task metrics for the outputs it names (as validation.tasks)
  std::string labels_name = "labels";  // names the labels in errors (the CLI gives the .npy file)
  // Merged into the report's "provenance" and "model" objects (the CLI: the files, their SHA-256 and
  // sizes, the data folder); CompareModels adds ptq_version, validation_samples, matched_layers and
  // the int8 model's op_counts.
  nlohmann::json provenance = nlohmann::json::object();
  nlohmann::json model = nlohmann::json::object();
};

// The inputs both models take, for opening a SampleReader that fits both: a Graph with only `inputs`
// (and `source`) set, the float model's inputs with every dim fixed that either model fixes. Throws an
// input error naming both models (Graph::source) and the input when their inputs differ in names,
// dtypes, ranks, or dims both fix.
Graph SharedInputs(const Graph& float_model, const Graph& int8_model);

// The report ("ptq-report" JSON, report/README.md; no gate, no recovery): Validate over one pass of
// `batches`, per model output, and per layer when options.per_layer. `labels` (int64 [samples], may be
// null) adds top-1. Checks first, throwing input errors that name the models: the inputs as
// SharedInputs; the outputs must have the same names (the int8 model's are matched to the float
// model's by name, in any order). Throws an input error naming options.labels_name when there are
// fewer labels than samples. Warnings in the report: the int8 model has no quantized op; per-layer
// rows were asked for but no 8-bit tensor could be matched to a float one.
nlohmann::json CompareModels(const Graph& float_model, const Graph& int8_model, const BatchSourceFactory& batches,
                             const Tensor* labels, const CompareOptions& options = {});

}  // namespace ptq
