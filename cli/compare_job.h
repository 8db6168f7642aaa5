// ptq compare's job, behind the command and the Python module's ptq.compare: two model files run in
// lock-step on samples, the accuracy report, its files written together.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "calibrate/sample_source.h"

namespace ptq {

struct CompareRequest {
  std::string float_path, int8_path;
  SampleSourceFactory data;   // the samples (opened once, for the inputs both models take)
  std::string data_name;      // names them in the report's provenance
  std::string labels_path;    // int64 class per sample (.npy); "" for none
  SampleOptions options;      // batch_size, max_samples
  std::string report_path;    // .json, .html or .md (with the JSON beside it); "" writes nothing
};

struct CompareOutcome {
  nlohmann::json report;              // "ptq-report" JSON (report/README.md)
  std::string json_path;              // "" when nothing was written
  std::vector<std::string> warnings;  // the data's (NaN counts, ...) and the report's
};

// Loads both models, checks that they take the same inputs (names, types), compares them on one pass
// over the samples and writes the report when asked (never over either model; atomically). Throws
// ptq::Error: usage errors for a bad report name, input errors naming the file for bad models or data.
CompareOutcome RunCompare(const CompareRequest& request);

}  // namespace ptq
