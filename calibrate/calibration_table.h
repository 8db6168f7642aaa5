// The calibration table: versioned JSON with, per tensor, its statistics and the chosen dtype, scale
// and zero point; plus the provenance (model and config digests, ptq version). configs/README.md
// documents the format. Tables of shards of the same model and config merge into the table of one run.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "calibrate/calibrator.h"

namespace ptq {

nlohmann::json CalibrationTableToJson(const CalibrationResult& result, const TableProvenance& provenance);

// Reads a table; throws an input error naming the file and the field on a malformed or newer-version table.
CalibrationResult CalibrationTableFromJson(const nlohmann::json& j, const std::string& where, TableProvenance* provenance);

// Reads a table file: size, nesting depth and value count are checked before parsing (JsonLimits),
// then CalibrationTableFromJson. Errors are input errors naming the file.
CalibrationResult ReadCalibrationTable(const std::string& path, TableProvenance* provenance);

// Adds shard `b` into `a` (histograms merged exactly, sample counts summed). Throws an input error when
// the tables come from different models or configs, or name different tensors.
void MergeCalibrationResults(CalibrationResult* a, const TableProvenance& pa, const CalibrationResult& b,
                             const TableProvenance& pb, const std::string& where_b);

}  // namespace ptq
