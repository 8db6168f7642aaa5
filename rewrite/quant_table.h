// The calibration table as the rewrite reads it: per tensor the chosen dtype, scale(s), zero point(s).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "runtime/dtype.h"
#include "runtime/tensor.h"

namespace ptq {

struct TensorQuant {
  std::string role;                  // "activation", "weight" or "softmax_output"
  DataType dtype = DataType::kUint8;
  std::vector<float> scales;         // one, or one per channel along `axis`
  std::vector<int32_t> zero_points;
  int64_t axis = -1;                 // -1: per tensor
  Shape shape;                       // the largest shape calibration saw
  bool per_tensor() const { return scales.size() == 1; }
};

struct QuantTable {
  std::map<std::string, TensorQuant> tensors;
  std::string model_sha256, config_sha256;
  std::string file_sha256;  // of the table file itself (recorded in the model's metadata)
};

// Reads the table written by `ptq calibrate` (format "ptq-calibration-table", version 1; see
// configs/README.md). Only the fields the rewrite needs are read and checked; errors name the file
// and the tensor.
QuantTable ReadQuantTable(const std::string& path);
// The same from the table's text; `where` names it in errors.
QuantTable ParseQuantTable(const std::string& text, const std::string& where);

}  // namespace ptq
