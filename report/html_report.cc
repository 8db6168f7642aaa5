// Renders a ptq accuracy report ("ptq-report" JSON) as one self-contained HTML page.
#include "report/html_report.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/report_fields.h"
#include "report/svg_chart.h"

namespace ptq {
namespace {

using nlohmann::json;

constexpr size_t kHistogramLayers = 6;

const char* kCss = R"(
body{font-family:-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:#222;margin:24px auto;max-width:1140px;padding:0 16px;line-height:1.4}
h1{font-size:26px;margin:0 0 4px}h2{font-size:19px;margin:30px 0 10px;border-bottom:1px solid #dde1e6;padding-bottom:4px}
code,.mono{font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:12.5px}
.subtitle{color:#555;margin:0 0 14px;word-break:break-all}
table{border-collapse:collapse;margin:6px 0;font-size:13.5px}
th,td{border:1px solid #dde1e6;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f1f3f6;font-weight:600}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.name{word-break:break-all;min-width:180px}
table.kv th{width:190px}table.kv td{word-break:break-all}
.bad{color:#c5221f;font-weight:600}
.gate{border:2px solid;border-radius:6px;padding:10px 14px;margin:14px 0 18px;font-size:16px}
.gate.pass{background:#e6f4ea;border-color:#1e8e3e;color:#137333}
.gate.fail{background:#fce8e6;border-color:#d93025;color:#a50e0e}
.gate.none{background:#f1f3f6;border-color:#b0b6be;color:#444}
.gate .status{font-size:20px;font-weight:700}.gate ul{margin:6px 0 0;padding-left:22px}
.chip{display:inline-block;background:#eef1f5;border-radius:10px;padding:1px 9px;margin:2px 4px 2px 0;font-size:12.5px}
.note{color:#666;font-size:13px}
svg{max-width:100%;height:auto}
.hists{display:grid;grid-template-columns:repeat(3,1fr);gap:14px}
figure{margin:0;border:1px solid #dde1e6;border-radius:6px;padding:8px;background:#fff}
figcaption{font-size:12.5px;margin-bottom:4px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
)";

using report_fields::At;
using report_fields::Items;
using report_fields::Num;
using report_fields::OutputNotes;
using report_fields::FallbackSummary;
using report_fields::NodeList;
using report_fields::ReadBy;
using report_fields::ReadByNames;
using report_fields::Sqnr;
using report_fields::TaskAgreementFigure;
using report_fields::TaskSummary;
// A scalar as plain text (not yet escaped); "" for null, objects and arrays.
std::string Text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) return FormatGeneral(v.get<double>(), 6);
  if (v.is_number() || v.is_boolean()) return v.dump();
  return "";
}
std::string E(const std::string& s) { return HtmlEscape(s); }
std::string Or(std::optional<double> v, std::string (*fmt)(double)) { return v ? fmt(*v) : "—"; }
std::string G4(double v) { return FormatGeneral(v, 4); }
std::string Cos(double v) { return FormatFixed(v, 6); }
std::string Pct(double fraction) { return FormatFixed(100 * fraction, 1) + "%"; }
std::string ClipPct(double fraction) { return fraction == 0 ? "0%" : FormatGeneral(100 * fraction, 3) + "%"; }
std::string Bytes(double b) {
  if (b >= 1 << 20) return FormatFixed(b / (1 << 20), 2) + " MiB";
  if (b >= 1 << 10) return FormatFixed(b / (1 << 10), 1) + " KiB";
  return FormatFixed(b, 0) + " B";
}
std::string Td(const std::string& html, bool bad = false) {
  return std::string("<td class=\"num") + (bad ? " bad" : "") + "\">" + html + "</td>";
}
bool Below(std::optional<double> v, std::optional<double> threshold) { return v && threshold && *v < *threshold; }

void Title(std::ostringstream& o, const json& r) {
  const json& prov = At(r, "provenance");
  o << "<h1>ptq accuracy report</h1>\n<p class=\"subtitle\"><code>" << E(Text(At(prov, "model"))) << "</code>";
  if (!Text(At(prov, "quantized_model")).empty()) o << " → <code>" << E(Text(At(prov, "quantized_model"))) << "</code>";
  o << "</p>\n";
}

void Provenance(std::ostringstream& o, const json& r) {
  const json& prov = At(r, "provenance");
  static const std::vector<std::pair<std::string, std::string>> kLabels = {
      {"ptq_version", "ptq version"}, {"model", "Float model"}, {"quantized_model", "Quantized model"},
      {"method", "Calibration method"}, {"quantization_format", "Quantization format"},
      {"calibration_samples", "Calibration samples"}, {"validation_samples", "Validation samples"},
      {"model_sha256", "Model SHA-256"}, {"config_sha256", "Config SHA-256"}, {"table_sha256", "Table SHA-256"}};
  std::vector<std::pair<std::string, std::string>> rows;  // label, value
  for (const auto& [key, label] : kLabels) {
    if (!Text(At(prov, key.c_str())).empty()) rows.emplace_back(label, Text(At(prov, key.c_str())));
  }
  if (prov.is_object()) {  // fields this renderer does not know yet
    for (auto it = prov.begin(); it != prov.end(); ++it) {
      const bool known = std::any_of(kLabels.begin(), kLabels.end(), [&](const auto& l) { return l.first == it.key(); });
      if (!known && !Text(it.value()).empty()) rows.emplace_back(it.key(), Text(it.value()));
    }
  }
  const json& model = At(r, "model");
  const auto fb = Num(At(model, "float_bytes")), ib = Num(At(model, "int8_bytes"));
  if (fb || ib) {
    std::string size = Or(fb, Bytes) + " → " + Or(ib, Bytes);
    if (fb && ib && *ib > 0 && *fb > 0) size += " (" + FormatSizeChange(*fb, *ib) + ")";
    rows.emplace_back("Model size float → int8", size);
  }
  if (!rows.empty()) {
    o << "<table class=\"kv\">\n";
    for (const auto& [label, value] : rows) o << "<tr><th>" << E(label) << "</th><td>" << E(value) << "</td></tr>\n";
    o << "</table>\n";
  }
  std::vector<std::pair<std::string, double>> ops;
  const json& counts = At(model, "op_counts");
  if (counts.is_object()) {
    for (auto it = counts.begin(); it != counts.end(); ++it) {
      if (it.value().is_number()) ops.emplace_back(it.key(), it.value().get<double>());
    }
  }
  std::sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  if (!ops.empty()) {
    o << "<p>Ops in the int8 model: ";
    for (const auto& [op, n] : ops) o << "<span class=\"chip\">" << E(op) << " ×" << FormatGeneral(n, 10) << "</span>";
    o << "</p>\n";
  }
}

void Gate(std::ostringstream& o, const json& gate) {
  if (!gate.is_object()) {
    o << "<div class=\"gate none\">Accuracy gate: <span class=\"status\">none</span> — no thresholds were set.</div>\n";
    return;
  }
  const json& passed = At(gate, "passed");
  const char* cls = !passed.is_boolean() ? "none" : passed.get<bool>() ? "pass" : "fail";
  const char* status = !passed.is_boolean() ? "Gate result unknown" : passed.get<bool>() ? "PASSED" : "FAILED";
  o << "<div class=\"gate " << cls << "\">Accuracy gate: <span class=\"status\">" << status << "</span>";
  const json& th = At(gate, "thresholds");
  if (th.is_object() && !th.empty()) {
    o << " — thresholds:";
    for (auto it = th.begin(); it != th.end(); ++it) o << " <code>" << E(it.key()) << " " << E(Text(it.value())) << "</code>";
  }
  std::vector<std::string> failures;
  for (const json& f : Items(At(gate, "failures"))) {
    if (!Text(f).empty()) failures.push_back(Text(f));
  }
  if (!failures.empty()) {
    o << "\n<ul class=\"failures\">\n";
    for (const std::string& f : failures) o << "<li>" << E(f) << "</li>\n";
    o << "</ul>";
  }
  std::vector<std::string> unchecked;
  for (const json& u : Items(At(gate, "unchecked"))) {
    if (!Text(u).empty()) unchecked.push_back(Text(u));
  }
  if (!unchecked.empty()) {
    o << "\n<p>Not covered by the thresholds:</p>\n<ul class=\"unchecked\">\n";
    for (const std::string& u : unchecked) o << "<li>" << E(u) << "</li>\n";
    o << "</ul>";
  }
  o << "</div>\n";
}

// What the rewrite changed on its own (e.g. weight scales raised so that an int32 bias fits).
void Warnings(std::ostringstream& o, const json& warnings) {
  if (warnings.empty()) return;
  o << "<h2>Warnings</h2>\n<ul class=\"warnings\">\n";
  for (const json& w : warnings) o << "<li>" << E(Text(w)) << "</li>\n";
  o << "</ul>\n";
}

void Outputs(std::ostringstream& o, const json& r, std::optional<double> min_sqnr, std::optional<double> max_drop,
             std::optional<double> min_task) {
  const json& outputs = Items(At(r, "outputs"));
  o << "<h2>Model outputs</h2>\n";
  if (outputs.empty()) {
    o << "<p class=\"note\">No outputs in the report.</p>\n";
    return;
  }
  const bool top1 = std::any_of(outputs.begin(), outputs.end(), [](const json& x) { return At(x, "top1").is_object(); });
  o << "<table>\n<tr><th>Output</th><th class=\"num\">SQNR</th><th class=\"num\">Cosine</th><th class=\"num\">Max |err|</th>"
       "<th class=\"num\">Mean |err|</th><th class=\"num\">RMSE</th>";
  if (top1) o << "<th class=\"num\">Top-1 float</th><th class=\"num\">Top-1 int8</th><th class=\"num\">Top-1 drop</th>"
                 "<th class=\"num\">Agreement</th>";
  const bool task = std::any_of(outputs.begin(), outputs.end(), [](const json& x) { return At(x, "task").is_object(); });
  if (task) o << "<th>Task (int8 vs float)</th>";
  o << "</tr>\n";
  for (const json& out : outputs) {
    const auto sqnr = Sqnr(At(out, "sqnr_db"));
    o << "<tr><td class=\"name\"><code>" << E(Text(At(out, "name"))) << "</code></td>"
      << Td(FormatSqnr(sqnr) + (sqnr ? " dB" : ""), Below(sqnr, min_sqnr) || At(out, "nonfinite").is_object())
      << Td(Or(Num(At(out, "cosine")), Cos)) << Td(Or(Sqnr(At(out, "max_abs_error")), G4))
      << Td(Or(Sqnr(At(out, "mean_abs_error")), G4)) << Td(Or(Sqnr(At(out, "rmse")), G4));
    if (top1) {
      const json& t = At(out, "top1");
      const auto f = Num(At(t, "float")), q = Num(At(t, "int8"));
      const double drop = f && q ? *f - *q : 0.0;
      o << Td(Or(f, Pct)) << Td(Or(q, Pct))
        << Td(f && q ? FormatFixed(100 * drop, 2) + " pp" : "—", f && q && max_drop && drop > *max_drop)
        << Td(Or(Num(At(t, "agreement")), Pct));
    }
    if (task) {
      const auto agreement = TaskAgreementFigure(At(out, "task"));
      o << "<td class=\"task" << (agreement && min_task && *agreement < *min_task ? " bad" : "") << "\">"
        << E(TaskSummary(At(out, "task"))) << "</td>";
    }
    o << "</tr>\n";
  }
  o << "</table>\n";
  for (const std::string& note : OutputNotes(outputs)) o << "<p class=\"note\">" << E(note) << "</p>\n";
}

void Layers(std::ostringstream& o, const json& layers, std::optional<double> min_sqnr) {
  o << "<h2>SQNR per layer (worst first)</h2>\n";
  if (layers.empty()) {
    o << "<p class=\"note\">No layers in the report.</p>\n";
    return;
  }
  std::vector<SqnrBar> bars;
  for (const json& l : layers) bars.push_back({Text(At(l, "tensor")), Sqnr(At(l, "sqnr_db"))});
  o << "<p class=\"note\">Signal-to-quantization-noise ratio of each quantized tensor against the float model "
       "(higher is better). Bars past the axis end with an arrow.</p>\n"
    << SqnrBarChartSvg(bars, min_sqnr);
  o << "<h2>Layers</h2>\n<table>\n<tr><th class=\"num\">#</th><th>Tensor</th><th>Op</th><th>Read by</th><th>Type</th>"
       "<th class=\"num\">SQNR</th><th class=\"num\">Cosine</th><th class=\"num\">Range</th><th class=\"num\">Scale</th>"
       "<th class=\"num\">Zero point</th><th class=\"num\">Clipped</th></tr>\n";
  size_t index = 0;
  for (const json& l : layers) {
    const auto sqnr = Sqnr(At(l, "sqnr_db"));
    const json& range = Items(At(l, "range"));
    std::string range_text = "—";
    if (range.size() == 2 && range[0].is_number() && range[1].is_number()) {
      range_text = "[" + G4(range[0].get<double>()) + ", " + G4(range[1].get<double>()) + "]";
    }
    const std::string node = Text(At(l, "node"));
    o << "<tr><td class=\"num\">" << ++index << "</td><td class=\"name\"><code" << (node.empty() ? "" : " title=\"node " + E(node) + "\"")
      << ">" << E(Text(At(l, "tensor"))) << "</code></td><td>" << E(Text(At(l, "op"))) << "</td><td title=\""
      << E(ReadByNames(l)) << "\">" << E(ReadBy(l)) << "</td><td>" << E(Text(At(l, "dtype"))) << "</td>" << Td(FormatSqnr(sqnr) + (sqnr ? " dB" : ""), Below(sqnr, min_sqnr))
      << Td(Or(Num(At(l, "cosine")), Cos)) << Td(range_text) << Td(Or(Num(At(l, "scale")), G4))
      << Td(E(Text(At(l, "zero_point")).empty() ? "—" : Text(At(l, "zero_point"))))
      << Td(Or(Num(At(l, "clipped_fraction")), ClipPct)) << "</tr>\n";
  }
  o << "</table>\n";
}

void Recovery(std::ostringstream& o, const json& recovery) {
  if (recovery.empty()) return;
  o << "<h2>Recovery suggestions</h2>\n<p class=\"note\">Output SQNR when only this node is kept in float "
       "(exclude it from quantization in the config).</p>\n<table>\n<tr><th>Suggestion</th><th>Tensor</th>"
       "<th class=\"num\">Output SQNR</th><th class=\"num\">Gain</th></tr>\n";
  for (const json& s : recovery) {
    const auto gain = Sqnr(At(s, "gain_db"));  // a number, or "inf" when the int8 output was not finite
    const std::string gain_text = gain ? (*gain >= 0 ? "+" : "") + FormatSqnr(gain) + " dB" : "—";
    o << "<tr><td class=\"name\">keep <code>" << E(NodeList(s)) << "</code> in float: <b>" << gain_text
      << "</b></td><td class=\"name\"><code>" << E(Text(At(s, "tensor"))) << "</code></td>"
      << Td(FormatSqnr(Sqnr(At(s, "output_sqnr_db"))) + (Sqnr(At(s, "output_sqnr_db")) ? " dB" : "")) << Td(gain_text)
      << "</tr>\n";
  }
  o << "</table>\n";
}

void Fallback(std::ostringstream& o, const json& fallback) {
  if (!fallback.is_object()) return;
  o << "<h2>Automatic fallback</h2>\n<p class=\"note\">" << E(FallbackSummary(fallback)) << ". Each step keeps float the "
       "nodes behind one of the worst layers, the one that improved the model most.</p>\n";
  const json& kept = Items(At(fallback, "kept_float"));
  if (kept.empty()) return;
  o << "<table>\n<tr><th>Kept float</th><th>Tensor</th><th class=\"num\">Layer SQNR before</th>"
       "<th class=\"num\">Output SQNR after</th></tr>\n";
  for (const json& s : kept) {
    o << "<tr><td class=\"name\"><code>" << E(NodeList(s)) << "</code></td><td class=\"name\"><code>" << E(Text(At(s, "tensor")))
      << "</code></td>" << Td(FormatSqnr(Sqnr(At(s, "layer_sqnr_db"))) + " dB") << Td(FormatSqnr(Sqnr(At(s, "output_sqnr_db"))) + " dB")
      << "</tr>\n";
  }
  o << "</table>\n";
}

void Histograms(std::ostringstream& o, const json& layers) {
  std::vector<std::string> figures;
  for (const json& l : layers) {
    if (figures.size() == kHistogramLayers) break;
    const json& h = At(l, "histogram");
    HistogramPlot plot;
    plot.lo = Num(At(h, "lo")).value_or(0);
    plot.hi = Num(At(h, "hi")).value_or(0);
    for (const json& c : Items(At(h, "counts"))) plot.counts.push_back(c.is_number() ? c.get<double>() : 0.0);
    const json& range = Items(At(l, "range"));
    if (range.size() == 2) {
      plot.clip_lo = Num(range[0]);
      plot.clip_hi = Num(range[1]);
    }
    const std::string svg = HistogramSvg(plot);
    if (svg.empty()) continue;
    const std::string tensor = Text(At(l, "tensor"));
    const auto sqnr = Sqnr(At(l, "sqnr_db"));
    const auto clipped = Num(At(l, "clipped_fraction"));
    figures.push_back("<figure><figcaption><code title=\"" + E(tensor) + "\">" + E(ShortenMiddle(tensor, 44)) +
                      "</code><br>SQNR " + FormatSqnr(sqnr) + (sqnr ? " dB" : "") +
                      (clipped ? " · clipped " + ClipPct(*clipped) : "") + "</figcaption>\n" + svg + "</figure>\n");
  }
  if (figures.empty()) return;
  o << "<h2>Activations of the worst layers</h2>\n<p class=\"note\">Float activation values over the validation data; "
       "bar heights are log(1 + count). Red lines mark the quantization range; values in the shaded regions "
       "are clipped.</p>\n<div class=\"hists\">\n";
  for (const std::string& f : figures) o << f;
  o << "</div>\n";
}

}  // namespace

std::string RenderHtmlReport(const json& report) {
  const json& gate = At(report, "gate");
  const json& thresholds = At(gate, "thresholds");
  const auto min_sqnr = Num(At(thresholds, "min_sqnr_db"));
  const auto max_drop = Num(At(thresholds, "max_top1_drop"));
  const auto min_task = Num(At(thresholds, "min_task_agreement"));
  const std::string model = Text(At(At(report, "provenance"), "model"));
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>ptq report"
    << (model.empty() ? "" : " — " + E(model)) << "</title>\n<style>" << kCss << "</style>\n</head>\n<body>\n";
  Title(o, report);
  Gate(o, gate);  // the verdict first, then where it comes from
  Provenance(o, report);
  Outputs(o, report, min_sqnr, max_drop, min_task);
  Warnings(o, Items(At(report, "warnings")));
  const json& layers = Items(At(report, "layers"));
  Fallback(o, At(report, "fallback"));
  Layers(o, layers, min_sqnr);
  Recovery(o, Items(At(report, "recovery")));
  Histograms(o, layers);
  o << "</body>\n</html>\n";
  return o.str();
}

}  // namespace ptq
