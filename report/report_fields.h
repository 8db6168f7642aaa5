// Reading the report JSON without throwing: missing keys, wrong types and "inf" SQNR strings handled.
#pragma once

#include <cctype>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ptq {
namespace report_fields {

using json = nlohmann::json;

// j[key] when j is an object holding it, else null.
inline const json& At(const json& j, const char* key) {
  static const json null_value;
  if (!j.is_object()) return null_value;
  auto it = j.find(key);
  return it == j.end() ? null_value : *it;
}

// The elements of v when it is an array, else none.
inline const json& Items(const json& v) {
  static const json empty = json::array();
  return v.is_array() ? v : empty;
}

inline std::optional<double> Num(const json& v) {
  if (v.is_number()) return v.get<double>();
  return std::nullopt;
}

// An SQNR: a number, or "inf" / "-inf" (any case; "infinity" too) for error-free or signal-free tensors.
inline std::optional<double> Sqnr(const json& v) {
  if (v.is_number()) return v.get<double>();
  if (!v.is_string()) return std::nullopt;
  std::string s = v.get<std::string>();
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const double inf = std::numeric_limits<double>::infinity();
  if (s == "inf" || s == "+inf" || s == "infinity") return inf;
  if (s == "-inf" || s == "-infinity") return -inf;
  return std::nullopt;
}

// Sentences about outputs that the error columns cannot show: int8 values that are not finite, outputs
// not compared by SQNR (with the reason and, for integer outputs, the share of equal elements).
inline std::vector<std::string> OutputNotes(const json& outputs) {
  std::vector<std::string> notes;
  for (const json& out : Items(outputs)) {
    const json& name = At(out, "name");
    const std::string n = name.is_string() ? name.get<std::string>() : "?";
    const json& nf = At(out, "nonfinite");
    if (nf.is_object() && Num(At(nf, "count"))) {
      notes.push_back("output '" + n + "': " + At(nf, "count").dump() + " int8 values are not finite where the float ones are (first at element " +
                      At(nf, "first_index").dump() + ")");
    }
    const json& reason = At(out, "reason");
    if (At(out, "compared").is_boolean() && !At(out, "compared").get<bool>() && reason.is_string()) {
      std::string s = "output '" + n + "' not compared by SQNR: " + reason.get<std::string>();
      if (const auto m = Num(At(out, "exact_match"))) {
        char pct[32];
        std::snprintf(pct, sizeof pct, "%.2f", 100 * *m);
        s += std::string(" (") + pct + "% equal)";
      }
      notes.push_back(s);
    }
  }
  return notes;
}

// An output's task metrics in one line ("" when it has none), e.g. "ctc: 97.5% same text, token error 0.80%".
inline std::string TaskSummary(const json& task) {
  const json& type = At(task, "type");
  if (!type.is_string()) return "";
  const std::string t = type.get<std::string>();
  auto pct = [](std::optional<double> f, int digits) {
    if (!f) return std::string("—");
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.*f%%", digits, 100 * *f);
    return std::string(buf);
  };
  auto count = [&](const char* key) { return Num(At(task, key)) ? At(task, key).dump() : std::string("?"); };
  std::string s = t + ": ";
  if (Num(At(task, "samples")).value_or(0) <= 0) return s + "no samples measured";
  if (t == "classification") {
    s += pct(Num(At(task, "top1_agreement")), 1) + " top-1 agree";
    if (Num(At(task, "top5_agreement"))) s += ", " + pct(Num(At(task, "top5_agreement")), 1) + " in float's top-5";
  } else if (t == "ctc") {
    s += pct(Num(At(task, "same_sequence")), 1) + " same text, token error " + pct(Num(At(task, "token_error_rate")), 2);
  } else if (t == "text_detection") {
    s += pct(Num(At(task, "recall")), 1) + " of " + count("float_boxes") + " float boxes matched, precision " +
         pct(Num(At(task, "precision")), 1) + " (" + count("int8_boxes") + " int8 boxes)";
  } else if (t == "segmentation") {
    s += pct(Num(At(task, "pixel_agreement")), 1) + " pixels agree";
  } else {
    s += "unknown task";
  }
  return s;
}

// The task's main agreement figure (what validation.gate.min_task_agreement checks), if the report has it.
inline std::optional<double> TaskAgreementFigure(const json& task) {
  const json& type = At(task, "type");
  if (!type.is_string()) return std::nullopt;
  const std::string t = type.get<std::string>();
  const char* key = t == "ctc" ? "same_sequence" : t == "text_detection" ? "recall" : t == "segmentation" ? "pixel_agreement" : "top1_agreement";
  return Num(At(task, key));
}

// A recovery or fallback entry's nodes, comma-separated ("nodes", else the single "node").
inline std::string NodeList(const json& entry) {
  std::string s;
  for (const json& n : Items(At(entry, "nodes"))) {
    if (n.is_string()) s += (s.empty() ? "" : ", ") + n.get<std::string>();
  }
  if (s.empty() && At(entry, "node").is_string()) s = At(entry, "node").get<std::string>();
  return s;
}

// A layer's readers in short: "2 int8, 1 float, 1 dequantized" (the counts of its "readers" lists;
// empty when the layer has none recorded).
inline std::string ReadBy(const json& layer) {
  const json& readers = At(layer, "readers");
  std::string s;
  for (const char* form : {"int8", "float", "dequantized"}) {
    const size_t n = Items(At(readers, form)).size();
    if (n == 0) continue;
    s += (s.empty() ? "" : ", ") + std::to_string(n) + " " + form;
  }
  return s;
}

// The readers by name, one form per line: "int8: a, b\nfloat: c".
inline std::string ReadByNames(const json& layer) {
  const json& readers = At(layer, "readers");
  std::string s;
  for (const char* form : {"int8", "float", "dequantized"}) {
    std::string names;
    for (const json& n : Items(At(readers, form))) {
      if (n.is_string()) names += (names.empty() ? "" : ", ") + n.get<std::string>();
    }
    if (!names.empty()) s += (s.empty() ? "" : "\n") + std::string(form) + ": " + names;
  }
  return s;
}

// The automatic fallback in one sentence: the verdict, the steps and models measured, and the cost
// ("" when the report has no fallback).
inline std::string FallbackSummary(const json& fallback) {
  if (!fallback.is_object()) return "";
  const bool met = At(fallback, "met").is_boolean() && At(fallback, "met").get<bool>();
  const size_t steps = Items(At(fallback, "kept_float")).size();
  const auto runs = Num(At(fallback, "runs")), budget = Num(At(fallback, "budget"));
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s: %zu step%s kept float after %.0f of %.0f candidate models", met ? "gate met" : "gate still fails",
                steps, steps == 1 ? "" : "s", runs.value_or(0), budget.value_or(0));
  std::string s = buf;
  const json& stopped = At(fallback, "stopped");
  if (!met && stopped.is_string()) s += " (" + stopped.get<std::string>() + ")";
  const json& cost = At(fallback, "cost");
  const auto b0 = Num(At(cost, "int8_bytes_before")), b1 = Num(At(cost, "int8_bytes_after"));
  const auto t0 = Num(At(cost, "run_seconds_before")), t1 = Num(At(cost, "run_seconds_after"));
  if (b0 && b1 && t0 && t1 && *b0 > 0 && *t0 > 0) {
    std::snprintf(buf, sizeof buf, "; int8 model %.2fx the size and %.2fx the run time (one batch, median of 3) of the default one",
                  *b1 / *b0, *t1 / *t0);
    s += buf;
  }
  return s;
}

}  // namespace report_fields
}  // namespace ptq
