// Renders a ptq accuracy report ("ptq-report" JSON) as one self-contained HTML page.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

namespace ptq {

// The page for `report` (format "ptq-report", version 1): header with the model paths, the gate
// result right below it (green passed / red failed, neutral when there is no gate), the provenance
// table with model sizes and op counts, the per-output table (top-1 columns when any output has
// top1), an inline-SVG bar chart of SQNR per layer in report order (worst first) with the gate's
// min_sqnr_db as a reference line, the layer table, the recovery suggestions, and activation
// histograms with the clipping range for the first 6 layers that have one. No external resources
// and no JavaScript; every string from the report is HTML-escaped. Never throws on missing fields or
// fields of the wrong type: they render as "—" or their section is left out (the report is expected
// to have been validated; this only must not crash). SQNRs may be numbers (any size) or "inf".
std::string RenderHtmlReport(const nlohmann::json& report);

}  // namespace ptq
