// Renders a ptq accuracy report ("ptq-report" JSON) as a compact terminal summary.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

namespace ptq {

// A few lines for the terminal: model and sizes, the outputs table (SQNR, cosine, max error, top-1
// when present), the gate line with its failures, the first max_layers layers of the report (worst
// first) with SQNR and a bar of block characters, and the recovery suggestions. Columns are aligned
// by code points; tensor names longer than the column are shortened in the middle with "…".
// color: ANSI SGR colours (red for gate failures and for SQNR below the gate's min_sqnr_db, or below
// 20 dB when there is no gate; green for a passed gate); without it the text holds no escape
// character at all (control characters from the report are replaced by '?' in both modes).
// max_layers <= 0 leaves the layer section out. Never throws on missing or mistyped fields.
std::string RenderTerminalReport(const nlohmann::json& report, bool color, int max_layers = 10);

}  // namespace ptq
