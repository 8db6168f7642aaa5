// Renders a ptq accuracy report ("ptq-report" JSON) as a compact terminal summary.
#include "report/terminal_report.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/report_fields.h"
#include "report/svg_chart.h"

namespace ptq {
namespace {

using nlohmann::json;

constexpr const char* kRed = "31";
constexpr const char* kGreen = "32";
constexpr const char* kCyan = "36";
constexpr const char* kBold = "1";
constexpr const char* kDim = "2";
constexpr size_t kNameWidth = 48;  // longest tensor name column before shortening
constexpr int kBarCells = 24;
constexpr double kLowSqnrDb = 20;  // "low" when the report has no gate

using report_fields::At;
using report_fields::Items;
using report_fields::Num;
using report_fields::OutputNotes;
using report_fields::FallbackSummary;
using report_fields::NodeList;
using report_fields::ReadBy;
using report_fields::Sqnr;
using report_fields::TaskAgreementFigure;
using report_fields::TaskSummary;
// A scalar as text with C0/C1 control characters (ESC, CSI, newlines...) replaced by '?'.
std::string Text(const json& v) {
  std::string s;
  if (v.is_string()) s = v.get<std::string>();
  else if (v.is_number_float()) s = FormatGeneral(v.get<double>(), 6);
  else if (v.is_number() || v.is_boolean()) s = v.dump();
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = s[i];
    if (c < 0x20 || c == 0x7f) {
      out += '?';
    } else if (c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(s[i + 1]) <= 0x9F) {
      out += '?';
      ++i;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}
size_t Width(const std::string& s) {
  return std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; });
}
std::string Db(std::optional<double> v) { return FormatSqnr(v); }
std::string Pct(std::optional<double> f) { return f ? FormatFixed(100 * *f, 1) + "%" : "—"; }

struct Painter {
  bool color;
  std::string operator()(const std::string& s, const char* sgr) const {
    if (!color || !sgr || s.empty()) return s;
    return std::string("\x1b[") + sgr + "m" + s + "\x1b[0m";
  }
};

struct Cell {
  std::string text;
  const char* sgr = nullptr;
};
// rows[0] is the header; right[c] right-aligns column c. The last column is not padded.
std::string RenderTable(const std::vector<std::vector<Cell>>& rows, const std::vector<bool>& right, const Painter& paint) {
  std::vector<size_t> width(right.size(), 0);
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size() && c < width.size(); ++c) width[c] = std::max(width[c], Width(row[c].text));
  }
  std::string out;
  for (size_t r = 0; r < rows.size(); ++r) {
    std::string line = "  ";
    for (size_t c = 0; c < rows[r].size() && c < width.size(); ++c) {
      const Cell& cell = rows[r][c];
      const std::string pad(width[c] - Width(cell.text), ' ');
      const bool last = c + 1 == rows[r].size();
      const std::string text = paint(cell.text, r == 0 ? kBold : cell.sgr);
      line += right[c] ? pad + text : text + (last ? "" : pad);
      if (!last) line += "  ";
    }
    line.erase(line.find_last_not_of(' ') + 1);  // an empty last cell leaves no trailing blanks
    out += line + "\n";
  }
  return out;
}

// Block-character bar of v on [0, top] in kBarCells cells (eighths), "+" when v is past the axis.
std::string Bar(std::optional<double> v, double top) {
  if (!v || std::isnan(*v) || *v <= 0) return "";
  static const char* kEighths[] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
  const int eighths = static_cast<int>(std::lround(std::min(*v / top, 1.0) * kBarCells * 8));
  std::string bar;
  for (int i = 0; i < eighths / 8; ++i) bar += "█";
  bar += kEighths[eighths % 8];
  if (*v > top) bar += "+";
  return bar;
}

}  // namespace

std::string RenderTerminalReport(const json& report, bool color, int max_layers) {
  const Painter paint{color};
  const json& prov = At(report, "provenance");
  const json& gate = At(report, "gate");
  const auto min_sqnr = Num(At(At(gate, "thresholds"), "min_sqnr_db"));
  const auto max_drop = Num(At(At(gate, "thresholds"), "max_top1_drop"));
  const auto min_task = Num(At(At(gate, "thresholds"), "min_task_agreement"));
  const double low = min_sqnr.value_or(kLowSqnrDb);
  auto sqnr_color = [&](std::optional<double> v) { return v && *v < low ? kRed : nullptr; };
  std::ostringstream o;

  o << paint("ptq report", kBold) << ": " << Text(At(prov, "model"));
  if (!Text(At(prov, "quantized_model")).empty()) o << " → " << Text(At(prov, "quantized_model"));
  o << "\n";
  std::vector<std::string> facts;
  for (const char* key : {"method", "quantization_format"}) {
    if (!Text(At(prov, key)).empty()) facts.push_back(Text(At(prov, key)));
  }
  if (Num(At(prov, "calibration_samples"))) facts.push_back(Text(At(prov, "calibration_samples")) + " calibration samples");
  if (Num(At(prov, "validation_samples"))) facts.push_back(Text(At(prov, "validation_samples")) + " validation samples");
  const auto fb = Num(At(At(report, "model"), "float_bytes")), ib = Num(At(At(report, "model"), "int8_bytes"));
  if (fb && ib && *ib > 0) {
    facts.push_back(FormatFixed(*fb / 1024, 1) + " KiB → " + FormatFixed(*ib / 1024, 1) + " KiB (" +
                    (*fb > 0 ? FormatSizeChange(*fb, *ib) : std::string("—")) + ")");
  }
  if (!facts.empty()) {
    std::string line;
    for (const std::string& f : facts) line += (line.empty() ? "" : " · ") + f;
    o << "  " << paint(line, kDim) << "\n";
  }

  const json& outputs = Items(At(report, "outputs"));
  if (!outputs.empty()) {
    const bool top1 = std::any_of(outputs.begin(), outputs.end(), [](const json& x) { return At(x, "top1").is_object(); });
    std::vector<std::vector<Cell>> rows = {{{"output"}, {"SQNR dB"}, {"cosine"}, {"max |err|"}, {"RMSE"}}};
    std::vector<bool> right = {false, true, true, true, true};
    if (top1) {
      for (const char* h : {"top-1 float", "top-1 int8", "drop", "agree"}) {
        rows[0].push_back({h});
        right.push_back(true);
      }
    }
    const bool task = std::any_of(outputs.begin(), outputs.end(), [](const json& x) { return At(x, "task").is_object(); });
    if (task) {
      rows[0].push_back({"task (int8 vs float)"});
      right.push_back(false);
    }
    for (const json& out : outputs) {
      const auto sqnr = Sqnr(At(out, "sqnr_db"));
      const auto cos = Num(At(out, "cosine")), max_err = Sqnr(At(out, "max_abs_error")), rmse = Sqnr(At(out, "rmse"));
      std::vector<Cell> row = {{ShortenMiddle(Text(At(out, "name")), kNameWidth)},
                               {Db(sqnr), sqnr_color(sqnr)},
                               {cos ? FormatFixed(*cos, 6) : "—"},
                               {max_err ? FormatGeneral(*max_err, 4) : "—"},
                               {rmse ? FormatGeneral(*rmse, 4) : "—"}};
      if (top1) {
        const json& t = At(out, "top1");
        const auto f = Num(At(t, "float")), q = Num(At(t, "int8"));
        const bool bad_drop = f && q && max_drop && *f - *q > *max_drop;
        row.push_back({Pct(f)});
        row.push_back({Pct(q)});
        row.push_back({f && q ? FormatFixed(100 * (*f - *q), 2) + " pp" : "—", bad_drop ? kRed : nullptr});
        row.push_back({Pct(Num(At(t, "agreement")))});
      }
      if (task) {
        const auto agreement = TaskAgreementFigure(At(out, "task"));
        row.push_back({Text(json(TaskSummary(At(out, "task")))), agreement && min_task && *agreement < *min_task ? kRed : nullptr});
      }
      rows.push_back(std::move(row));
    }
    o << "\n" << RenderTable(rows, right, paint);
    for (const std::string& note : OutputNotes(outputs)) {
      const bool bad = note.find("not finite") != std::string::npos;
      o << "  " << paint((bad ? "✗ " : "· ") + Text(json(note)), bad ? kRed : kDim) << "\n";
    }
  }

  o << "\n";
  if (!gate.is_object()) {
    o << "Gate: " << paint("none", kDim) << " (no thresholds set)\n";
  } else {
    const json& passed = At(gate, "passed");
    const bool ok = passed.is_boolean() && passed.get<bool>();
    o << "Gate: " << paint(!passed.is_boolean() ? "unknown" : ok ? "PASSED" : "FAILED", ok ? kGreen : kRed);
    const json& th = At(gate, "thresholds");
    if (th.is_object() && !th.empty()) {
      std::string list;
      for (auto it = th.begin(); it != th.end(); ++it) list += (list.empty() ? "" : ", ") + Text(json(it.key())) + " " + Text(it.value());
      o << " (" << list << ")";
    }
    o << "\n";
    for (const json& f : Items(At(gate, "failures"))) o << "  " << paint("✗ " + Text(f), kRed) << "\n";
    for (const json& u : Items(At(gate, "unchecked"))) o << "  " << paint("· " + Text(u), kDim) << "\n";
  }
  const json& warnings = Items(At(report, "warnings"));
  if (!warnings.empty()) {
    o << "\n" << paint("Warnings", kBold) << "\n";
    for (const json& w : warnings) o << "  " << paint("! " + Text(w), kRed) << "\n";
  }

  const json& layers = Items(At(report, "layers"));
  if (max_layers > 0 && !layers.empty()) {
    const size_t shown = std::min(layers.size(), static_cast<size_t>(max_layers));
    double top = min_sqnr ? std::min(*min_sqnr, kSqnrAxisCapDb) : 0;  // same axis rule as the HTML chart
    for (const json& l : layers) {
      const auto v = Sqnr(At(l, "sqnr_db"));
      if (v && *v <= kSqnrAxisCapDb) top = std::max(top, *v);
    }
    top = top <= 0 ? 10 : std::ceil(top / 10 - 1e-9) * 10;
    std::vector<std::vector<Cell>> rows = {{{"layer"}, {"op"}, {"read by"}, {"SQNR dB"}, {"0–" + FormatGeneral(top, 4) + " dB"}}};
    for (size_t i = 0; i < shown; ++i) {
      const auto v = Sqnr(At(layers[i], "sqnr_db"));
      const char* bad = sqnr_color(v);
      rows.push_back({{ShortenMiddle(Text(At(layers[i], "tensor")), kNameWidth)},
                      {Text(At(layers[i], "op"))},
                      {ReadBy(layers[i])},
                      {Db(v), bad},
                      {Bar(v, top), bad ? bad : kCyan}});
    }
    o << "\n" << paint("Worst " + std::to_string(shown) + " of " + std::to_string(layers.size()) + " layers", kBold)
      << "\n" << RenderTable(rows, {false, false, false, true, false}, paint);
  }

  const json& fallback = At(report, "fallback");
  if (fallback.is_object()) {
    o << "\n" << paint("Automatic fallback", kBold) << "\n  " << FallbackSummary(fallback) << "\n";
    std::vector<std::vector<Cell>> rows = {{{"kept float"}, {"layer SQNR dB"}, {"output SQNR dB after"}}};
    for (const json& s : Items(At(fallback, "kept_float"))) {
      rows.push_back({{ShortenMiddle(NodeList(s), kNameWidth)}, {Db(Sqnr(At(s, "layer_sqnr_db")))}, {Db(Sqnr(At(s, "output_sqnr_db")))}});
    }
    if (rows.size() > 1) o << RenderTable(rows, {false, true, true}, paint);
  }

  const json& recovery = Items(At(report, "recovery"));
  if (!recovery.empty()) {
    std::vector<std::vector<Cell>> rows = {{{"keep in float"}, {"gain"}, {"output SQNR dB"}}};
    for (const json& s : recovery) {
      const auto gain = Sqnr(At(s, "gain_db"));  // a number, or "inf" when the int8 output was not finite
      rows.push_back({{ShortenMiddle(NodeList(s), kNameWidth)},
                      {gain ? (*gain >= 0 ? "+" : "") + FormatSqnr(gain) + " dB" : "—", gain ? kGreen : nullptr},
                      {Db(Sqnr(At(s, "output_sqnr_db")))}});
    }
    o << "\n" << paint("Recovery suggestions", kBold) << "\n" << RenderTable(rows, {false, true, true}, paint);
  }
  return o.str();
}

}  // namespace ptq
