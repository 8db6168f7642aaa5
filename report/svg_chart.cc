// Inline SVG charts for the HTML report (per-layer SQNR bars, activation histograms) and text helpers.
#include "report/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace ptq {
namespace {

constexpr const char* kBlue = "#4a7bd0";
constexpr const char* kLightBlue = "#9dbbec";
constexpr const char* kRed = "#d93025";

// SVG coordinate: one decimal is plenty at screen resolution.
std::string C(double v) { return FormatFixed(v, 1); }

bool IsContinuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// Picks a tick step from 1-2-5 steps so that [0, top] has at most 8 intervals.
double TickStep(double top) {
  for (double step : {1.0, 2.0, 5.0, 10.0, 20.0, 25.0, 50.0}) {
    if (top / step <= 8) return step;
  }
  return 100.0;
}

}  // namespace

std::string HtmlEscape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string ShortenMiddle(const std::string& s, size_t max_chars) {
  std::vector<size_t> starts;  // byte offset of each code point
  for (size_t i = 0; i < s.size(); ++i) {
    if (!IsContinuation(static_cast<unsigned char>(s[i]))) starts.push_back(i);
  }
  if (starts.size() <= max_chars) return s;
  if (max_chars == 0) return "";
  const size_t keep = max_chars - 1;  // code points besides the ellipsis
  const size_t head = (keep + 1) / 2, tail = keep - head;
  return s.substr(0, starts[head]) + "…" + s.substr(starts[starts.size() - tail]);
}

std::string FormatFixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string FormatGeneral(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

std::string FormatSqnr(std::optional<double> db) {
  if (!db) return "—";
  if (std::isinf(*db)) return *db > 0 ? "∞" : "−∞";
  if (std::isnan(*db)) return "nan";
  if (std::fabs(*db) >= 1e4) return FormatGeneral(*db, 3);
  return FormatFixed(*db, 1);
}

std::string FormatSizeChange(double from, double to) {
  if (FormatFixed(from / to, 2) == "1.00" && FormatFixed(to / from, 2) == "1.00") return "the same size";
  return from >= to ? FormatFixed(from / to, 2) + "× smaller" : FormatFixed(to / from, 2) + "× larger";
}

std::string SqnrBarChartSvg(const std::vector<SqnrBar>& rows, std::optional<double> min_sqnr_db) {
  if (rows.empty()) return "";
  if (min_sqnr_db && !std::isfinite(*min_sqnr_db)) min_sqnr_db.reset();
  // Axis: 0 .. a round number covering the values up to the cap and the threshold.
  double top = 0;
  for (const SqnrBar& r : rows) {
    if (r.sqnr_db && *r.sqnr_db <= kSqnrAxisCapDb) top = std::max(top, *r.sqnr_db);
  }
  if (min_sqnr_db) top = std::max(top, std::min(*min_sqnr_db, kSqnrAxisCapDb));
  top = std::max(top, 10.0);  // below 10 dB everything is bad anyway; keeps the ticks meaningful
  const double step = TickStep(top);
  top = std::ceil(top / step - 1e-9) * step;

  const double width = 1100, label_w = 380, x0 = label_w, x1 = width - 110;
  const double row_h = 22, bar_h = 14, y_top = 28, y_bottom_margin = min_sqnr_db ? 26 : 8;
  const double plot_h = rows.size() * row_h;
  const double height = y_top + plot_h + y_bottom_margin;
  auto x_of = [&](double db) { return x0 + (x1 - x0) * std::clamp(db / top, 0.0, 1.0); };

  std::ostringstream o;
  o << "<svg class=\"sqnr-chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << C(width) << "\" height=\""
    << C(height) << "\" viewBox=\"0 0 " << C(width) << " " << C(height)
    << "\" font-family=\"sans-serif\" font-size=\"12\" role=\"img\" aria-label=\"SQNR per layer\">\n";
  for (size_t i = 0; i < rows.size(); i += 2) {  // zebra rows
    o << "<rect x=\"0\" y=\"" << C(y_top + i * row_h) << "\" width=\"" << C(x1) << "\" height=\"" << C(row_h)
      << "\" fill=\"#f4f6f9\"/>\n";
  }
  for (double t = 0; t <= top + 1e-9; t += step) {  // grid and tick labels
    const double x = x_of(t);
    o << "<line x1=\"" << C(x) << "\" y1=\"" << C(y_top - 4) << "\" x2=\"" << C(x) << "\" y2=\"" << C(y_top + plot_h)
      << "\" stroke=\"#d5d9e0\" stroke-width=\"1\"/>\n";
    o << "<text x=\"" << C(x) << "\" y=\"" << C(y_top - 9) << "\" text-anchor=\"middle\" fill=\"#555\">"
      << FormatGeneral(t, 4) << (t + step > top + 1e-9 ? " dB" : "") << "</text>\n";
  }
  const size_t max_label = static_cast<size_t>((label_w - 14) / 7.3);  // 12px monospace
  std::ostringstream values;
  for (size_t i = 0; i < rows.size(); ++i) {
    const SqnrBar& r = rows[i];
    const double y = y_top + i * row_h, bar_y = y + (row_h - bar_h) / 2, text_y = y + row_h / 2 + 4;
    std::string cls = "ok";
    const char* fill = kBlue;
    double bar_w = 0;
    bool over = false;
    if (!r.sqnr_db || std::isnan(*r.sqnr_db)) {
      cls = "none";
    } else {
      over = *r.sqnr_db > top;
      bar_w = x_of(*r.sqnr_db) - x0;
      if (min_sqnr_db && *r.sqnr_db < *min_sqnr_db) {
        cls = "bad";
        fill = kRed;
      } else if (over) {
        cls = "over";
        fill = kLightBlue;
      }
    }
    o << "<g><title>" << HtmlEscape(r.label) << ": " << FormatSqnr(r.sqnr_db) << " dB</title>\n";
    o << "<text x=\"" << C(label_w - 8) << "\" y=\"" << C(text_y)
      << "\" text-anchor=\"end\" font-family=\"monospace\" fill=\"#222\">" << HtmlEscape(ShortenMiddle(r.label, max_label))
      << "</text>\n";
    o << "<rect class=\"sqnr-bar " << cls << "\" x=\"" << C(x0) << "\" y=\"" << C(bar_y) << "\" width=\"" << C(bar_w)
      << "\" height=\"" << C(bar_h) << "\" fill=\"" << fill << "\"/>\n";
    double value_x = x0 + bar_w + 6;
    if (over) {  // arrow head past the axis end: the bar is longer than drawn
      o << "<polygon points=\"" << C(x1) << "," << C(bar_y) << " " << C(x1 + 9) << "," << C(bar_y + bar_h / 2) << " "
        << C(x1) << "," << C(bar_y + bar_h) << "\" fill=\"" << fill << "\"/>\n";
      value_x += 10;
    }
    o << "</g>\n";
    // Values are drawn after the threshold line, on a white box where they cross it, so they stay readable.
    const std::string value = FormatSqnr(r.sqnr_db) + (r.sqnr_db ? " dB" : "");
    const double value_w = 7.0 * value.size() - 4;  // 12px sans-serif, a little generous ("∞" is 3 bytes)
    if (min_sqnr_db && x_of(*min_sqnr_db) > value_x - 3 && x_of(*min_sqnr_db) < value_x + value_w + 3) {
      values << "<rect x=\"" << C(value_x - 2) << "\" y=\"" << C(text_y - 11) << "\" width=\"" << C(value_w + 4)
             << "\" height=\"15\" fill=\"#fff\"/>\n";
    }
    values << "<text x=\"" << C(value_x) << "\" y=\"" << C(text_y) << "\" fill=\"" << (cls == "bad" ? kRed : "#222")
           << "\">" << value << "</text>\n";
  }
  if (min_sqnr_db) {
    const double x = x_of(*min_sqnr_db);
    o << "<line class=\"threshold-line\" x1=\"" << C(x) << "\" y1=\"" << C(y_top - 4) << "\" x2=\"" << C(x)
      << "\" y2=\"" << C(y_top + plot_h + 4) << "\" stroke=\"" << kRed
      << "\" stroke-width=\"2\" stroke-dasharray=\"5,3\"/>\n";
    o << "<text x=\"" << C(x) << "\" y=\"" << C(y_top + plot_h + 18) << "\" text-anchor=\"middle\" fill=\"" << kRed
      << "\">min_sqnr_db " << FormatSqnr(*min_sqnr_db) << " dB</text>\n";
  }
  o << values.str() << "</svg>\n";
  return o.str();
}

std::string HistogramSvg(const HistogramPlot& h) {
  if (h.counts.empty() || !std::isfinite(h.lo) || !std::isfinite(h.hi) || !(h.lo < h.hi)) return "";
  const double width = 360, height = 172, x0 = 8, x1 = width - 8, y0 = 14, y1 = 126;
  auto x_of = [&](double v) { return x0 + (x1 - x0) * std::clamp((v - h.lo) / (h.hi - h.lo), 0.0, 1.0); };
  double max_count = 0;
  for (double c : h.counts) {
    if (std::isfinite(c)) max_count = std::max(max_count, c);
  }
  const double clip_lo = h.clip_lo && std::isfinite(*h.clip_lo) ? *h.clip_lo : h.lo;
  const double clip_hi = h.clip_hi && std::isfinite(*h.clip_hi) ? *h.clip_hi : h.hi;

  std::ostringstream o;
  o << "<svg class=\"histogram\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << C(width) << "\" height=\""
    << C(height) << "\" viewBox=\"0 0 " << C(width) << " " << C(height)
    << "\" font-family=\"sans-serif\" font-size=\"11\" role=\"img\" aria-label=\"activation histogram\">\n";
  o << "<rect x=\"" << C(x0) << "\" y=\"" << C(y0) << "\" width=\"" << C(x1 - x0) << "\" height=\"" << C(y1 - y0)
    << "\" fill=\"#fafbfc\" stroke=\"#d5d9e0\"/>\n";
  if (clip_lo > h.lo) {
    o << "<rect class=\"clip-shade\" x=\"" << C(x0) << "\" y=\"" << C(y0) << "\" width=\"" << C(x_of(clip_lo) - x0)
      << "\" height=\"" << C(y1 - y0) << "\" fill=\"" << kRed << "\" fill-opacity=\"0.12\"/>\n";
  }
  if (clip_hi < h.hi) {
    o << "<rect class=\"clip-shade\" x=\"" << C(x_of(clip_hi)) << "\" y=\"" << C(y0) << "\" width=\""
      << C(x1 - x_of(clip_hi)) << "\" height=\"" << C(y1 - y0) << "\" fill=\"" << kRed << "\" fill-opacity=\"0.12\"/>\n";
  }
  const size_t n = h.counts.size();
  const double bin_w = (x1 - x0) / n, bin_span = (h.hi - h.lo) / n;
  for (size_t i = 0; i < n; ++i) {
    const double c = std::isfinite(h.counts[i]) ? std::max(0.0, h.counts[i]) : 0.0;
    if (c <= 0 || max_count <= 0) continue;
    const double bar_h = (y1 - y0) * std::log1p(c) / std::log1p(max_count);
    const double center = h.lo + (i + 0.5) * bin_span;
    const bool clipped = center < clip_lo || center > clip_hi;
    o << "<rect class=\"hbin" << (clipped ? " clipped" : "") << "\" x=\"" << C(x0 + i * bin_w) << "\" y=\""
      << C(y1 - bar_h) << "\" width=\"" << C(std::max(bin_w - 0.5, 0.5)) << "\" height=\"" << C(bar_h)
      << "\" fill=\"" << (clipped ? kRed : kBlue) << "\"><title>[" << FormatGeneral(h.lo + i * bin_span, 4) << ", "
      << FormatGeneral(h.lo + (i + 1) * bin_span, 4) << "): " << FormatGeneral(c, 10) << "</title></rect>\n";
  }
  if (h.lo < 0 && h.hi > 0) {
    o << "<line x1=\"" << C(x_of(0)) << "\" y1=\"" << C(y0) << "\" x2=\"" << C(x_of(0)) << "\" y2=\"" << C(y1)
      << "\" stroke=\"#999\" stroke-dasharray=\"2,2\"/>\n";
  }
  // Clip lines, each value below the axis on the outer side of its line (inner side near the edges).
  const double lo_x = x_of(clip_lo), hi_x = x_of(clip_hi);
  const bool show_lo = clip_lo >= h.lo && clip_lo <= h.hi, show_hi = clip_hi >= h.lo && clip_hi <= h.hi;
  double lo_label_end = -1e9;  // right end of the low label, to move the high one down if they touch
  for (int side = 0; side < 2; ++side) {
    if (!(side == 0 ? show_lo : show_hi)) continue;
    const double x = side == 0 ? lo_x : hi_x;
    const bool outer_fits = side == 0 ? x - x0 > 40 : x1 - x > 40;
    const bool to_left = (side == 0) == outer_fits;
    const std::string label = FormatGeneral(side == 0 ? clip_lo : clip_hi, 4);
    const double label_x = to_left ? x - 3 : x + 3, label_w = 6.5 * label.size();
    const double start = to_left ? label_x - label_w : label_x;
    const double y = side == 1 && start < lo_label_end + 4 ? y1 + 41 : y1 + 28;
    if (side == 0) lo_label_end = start + label_w;
    o << "<line class=\"clip-line\" x1=\"" << C(x) << "\" y1=\"" << C(y0 - 4) << "\" x2=\"" << C(x) << "\" y2=\""
      << C(y1 + 4) << "\" stroke=\"" << kRed << "\" stroke-width=\"1.5\"/>\n";
    o << "<text x=\"" << C(label_x) << "\" y=\"" << C(y) << "\" text-anchor=\"" << (to_left ? "end" : "start")
      << "\" fill=\"" << kRed << "\">" << label << "</text>\n";
  }
  // Histogram ends below the axis, unless a range label already says the same.
  if (!(show_lo && FormatGeneral(clip_lo, 4) == FormatGeneral(h.lo, 4))) {
    o << "<text x=\"" << C(x0) << "\" y=\"" << C(y1 + 15) << "\" fill=\"#555\">" << FormatGeneral(h.lo, 4) << "</text>\n";
  }
  if (!(show_hi && FormatGeneral(clip_hi, 4) == FormatGeneral(h.hi, 4))) {
    o << "<text x=\"" << C(x1) << "\" y=\"" << C(y1 + 15) << "\" text-anchor=\"end\" fill=\"#555\">"
      << FormatGeneral(h.hi, 4) << "</text>\n";
  }
  o << "</svg>\n";
  return o.str();
}

}  // namespace ptq
