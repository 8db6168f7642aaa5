// The rewrite stage alone, behind `ptq rewrite` and the Python module's ptq.rewrite: float model +
// calibration table -> quantized model file.
#pragma once

#include <string>

#include "cli/config_file.h"
#include "runtime/model_writer.h"
#include "runtime/quant_table.h"
#include "rewrite/rewriter.h"

namespace ptq {

struct RewriteOutcome {
  WrittenModel written;  // sizes and the data file
  RewriteInfo info;      // what stayed float, warnings, the checker's verdict
};

// Rewrites config.model with `table` (read from `table_origin`, for messages) into `out` (with its data
// file, as config.output_external_data says), written atomically. Throws an input error when the table
// was made for another model, a usage error when `out` is the input model.
RewriteOutcome RunRewrite(const ConfigFile& config, const QuantTable& table, const std::string& table_origin,
                          const std::string& out);

}  // namespace ptq
