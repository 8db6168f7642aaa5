// Inline SVG charts for the HTML report (per-layer SQNR bars, activation histograms) and text helpers.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace ptq {

// s with & < > " ' replaced by entities: safe as HTML/SVG text and inside quoted attribute values.
std::string HtmlEscape(const std::string& s);

// s cut to at most max_chars code points by replacing its middle with "…" (UTF-8 aware; s itself
// when it fits). The result keeps the start and the (usually more telling) end of a tensor name.
std::string ShortenMiddle(const std::string& s, size_t max_chars);

// printf-style number formatting ("nan"/"inf" for non-finite values).
std::string FormatFixed(double v, int decimals);   // "%.*f"
std::string FormatGeneral(double v, int digits);   // "%.*g"
// An SQNR value without unit: "—" when missing, "∞" / "−∞" for infinities, "%.3g" for |v| >= 1e4
// (so 1e300 stays short), "%.1f" otherwise.
std::string FormatSqnr(std::optional<double> db);

// How a size changed, in words that tell the direction: "3.98× smaller", "1.11× larger", "the same size".
// REQUIRES: from > 0, to > 0.
std::string FormatSizeChange(double from, double to);

// One row of the SQNR chart. sqnr_db: nullopt when the layer has none (drawn as an empty bar),
// +infinity for an exact layer.
struct SqnrBar {
  std::string label;  // full tensor name (shortened for display, full in the tooltip)
  std::optional<double> sqnr_db;
};

// Horizontal bar chart, one bar per row in the given order, each a <rect class="sqnr-bar ...">
// (modifier "bad" below min_sqnr_db, "over" past the axis, "none" when missing). The axis runs from 0
// to a round value covering the threshold and the SQNRs up to kSqnrAxisCapDb; higher (and infinite)
// ones do not stretch it: their bars end at the axis with an arrow and keep their true value as label. A dashed
// vertical line marks min_sqnr_db when given. Returns "" for no rows.
constexpr double kSqnrAxisCapDb = 80.0;
std::string SqnrBarChartSvg(const std::vector<SqnrBar>& rows, std::optional<double> min_sqnr_db);

// An activation histogram: counts in equal-width bins over [lo, hi] and the clipping range.
struct HistogramPlot {
  double lo = 0, hi = 0;
  std::vector<double> counts;
  std::optional<double> clip_lo, clip_hi;  // the chosen range; values outside are clipped
};

// Small SVG of h (bar heights are log(1 + count) so clipped tails stay visible; say so in the page),
// with the clipped regions shaded and the range ends drawn as vertical lines (class "clip-line")
// labelled with their values. Returns "" when h
// is unusable (no bins, or lo/hi not finite with lo < hi).
std::string HistogramSvg(const HistogramPlot& h);

}  // namespace ptq
