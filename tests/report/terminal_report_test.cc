// Tests of the terminal report: plain vs colour output, alignment, shortened names, "inf", missing fields.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/terminal_report.h"

namespace ptq {
namespace {

using nlohmann::json;

json SyntheticReport() {
  json r = {{"format", "ptq-report"}, {"version", 1}};
  r["provenance"] = {{"model", "float.onnx"}, {"quantized_model", "int8.onnx"}, {"method", "percentile"},
                     {"calibration_samples", 64}, {"validation_samples", 128}};
  r["model"] = {{"float_bytes", 299993}, {"int8_bytes", 116216}};
  r["outputs"] = json::array({{{"name", "logits"}, {"max_abs_error", 0.05}, {"rmse", 0.006}, {"cosine", 0.9998},
                               {"sqnr_db", 22.1}, {"top1", {{"float", 0.969}, {"int8", 0.947}, {"agreement", 0.97}}}}});
  r["layers"] = json::array();
  r["layers"].push_back({{"tensor", "a<b>&\"c'\x1b[2J"}, {"op", "MatMul"}, {"sqnr_db", 12.5}});
  r["layers"].push_back({{"tensor", "/encoder/layers.11/self_attn/out_proj/MatMul_output_0_quantized_really_long"},
                         {"op", "MatMul"}, {"sqnr_db", 31.0}});
  r["layers"].push_back({{"tensor", "huge"}, {"op", "Reshape"}, {"sqnr_db", 1e300}});
  r["layers"].push_back({{"tensor", "exact"}, {"op", "Relu"}, {"sqnr_db", "inf"}});
  r["recovery"] = json::array({{{"node", "/blocks.0/attn/MatMul"}, {"output_sqnr_db", 27.4}, {"gain_db", 5.3}}});
  r["gate"] = {{"thresholds", {{"min_sqnr_db", 25.0}, {"max_top1_drop", 0.01}}}, {"passed", false},
               {"failures", {"output 'logits': SQNR 22.1 dB < min_sqnr_db 25"}}};
  return r;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

size_t CodePoints(const std::string& s) {
  return std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; });
}

TEST(TerminalReport, PlainModeHasNoEscapeCharacters) {
  const std::string text = RenderTerminalReport(SyntheticReport(), /*color=*/false);
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  EXPECT_NE(text.find("a<b>&\"c'?[2J"), std::string::npos);  // the report's own ESC is neutralised too
  EXPECT_NE(text.find("Gate: FAILED (max_top1_drop 0.01, min_sqnr_db 25)"), std::string::npos);
  EXPECT_NE(text.find("✗ output 'logits': SQNR 22.1 dB < min_sqnr_db 25"), std::string::npos);
  EXPECT_NE(text.find("/blocks.0/attn/MatMul"), std::string::npos);
  EXPECT_NE(text.find("+5.3 dB"), std::string::npos);
}

TEST(TerminalReport, ColourModeMarksFailuresRed) {
  const std::string text = RenderTerminalReport(SyntheticReport(), /*color=*/true);
  EXPECT_NE(text.find("\x1b[31mFAILED\x1b[0m"), std::string::npos);
  EXPECT_NE(text.find("\x1b[31m12.5\x1b[0m"), std::string::npos);   // below min_sqnr_db
  EXPECT_EQ(text.find("\x1b[31m31.0\x1b[0m"), std::string::npos);   // above it
  EXPECT_NE(text.find("\x1b[31m2.20 pp\x1b[0m"), std::string::npos);  // top-1 drop over max_top1_drop
  EXPECT_EQ(text.find("\x1b[2J"), std::string::npos);

  json passed = SyntheticReport();
  passed["gate"]["passed"] = true;
  passed["gate"]["failures"] = json::array();
  EXPECT_NE(RenderTerminalReport(passed, true).find("\x1b[32mPASSED\x1b[0m"), std::string::npos);
}

TEST(TerminalReport, LayerColumnsAlignAndLongNamesAreShortened) {
  const std::string text = RenderTerminalReport(SyntheticReport(), false);
  std::vector<std::string> layer_lines;  // the lines after "Worst 4 of 4 layers" and its header
  const std::vector<std::string> lines = Lines(text);
  auto section = std::find(lines.begin(), lines.end(), "Worst 4 of 4 layers");
  ASSERT_NE(section, lines.end());
  for (auto it = section + 2; it != lines.end() && !it->empty(); ++it) layer_lines.push_back(*it);
  ASSERT_EQ(layer_lines.size(), 4u);
  EXPECT_EQ(text.find("/encoder/layers.11/self_attn/out_proj"), std::string::npos);
  EXPECT_NE(text.find("_really_long"), std::string::npos);  // the end of the name is kept
  EXPECT_NE(text.find("…"), std::string::npos);
  // The op column starts at the same code point on every row.
  auto op_column = [](const std::string& line) {
    const size_t byte = std::min({line.find("MatMul"), line.find("Reshape"), line.find("Relu")});
    return CodePoints(line.substr(0, byte));
  };
  for (const std::string& line : layer_lines) EXPECT_EQ(op_column(line), op_column(layer_lines[0])) << line;
  EXPECT_NE(text.find("∞"), std::string::npos);
  EXPECT_NE(text.find("1e+300"), std::string::npos);
  EXPECT_NE(text.find("████████████████████████+"), std::string::npos);  // past the capped axis
}

TEST(TerminalReport, MaxLayersLimitsTheList) {
  const std::string text = RenderTerminalReport(SyntheticReport(), false, 2);
  EXPECT_NE(text.find("Worst 2 of 4 layers"), std::string::npos);
  EXPECT_EQ(text.find("huge"), std::string::npos);
  EXPECT_EQ(RenderTerminalReport(SyntheticReport(), false, 0).find("layers"), std::string::npos);
}

TEST(TerminalReport, MissingOptionalFieldsDoNotCrash) {
  json r = SyntheticReport();
  r.erase("gate");
  r.erase("recovery");
  r["outputs"][0].erase("top1");
  const std::string text = RenderTerminalReport(r, true);
  EXPECT_NE(text.find("Gate: "), std::string::npos);
  EXPECT_EQ(text.find("top-1"), std::string::npos);
  EXPECT_EQ(text.find("Recovery"), std::string::npos);

  json broken = SyntheticReport();
  broken["layers"][0] = 5;
  broken["layers"][1]["sqnr_db"] = json::array();
  broken["gate"] = {{"passed", "yes"}, {"failures", 3}};
  broken["outputs"] = "none";
  EXPECT_FALSE(RenderTerminalReport(broken, true).empty());
  EXPECT_FALSE(RenderTerminalReport(json::object(), false).empty());
  EXPECT_FALSE(RenderTerminalReport(json(), true).empty());
}

// Each output's task figures in words, in the last column; red below min_task_agreement.
TEST(TerminalReport, TaskColumnSaysWhatQuantizationDidToTheTask) {
  json r = SyntheticReport();
  r["outputs"][0]["task"] = {{"type", "classification"}, {"samples", 128}, {"rows", 128}, {"top1_agreement", 0.96875},
                             {"top5_agreement", 1.0}};
  r["outputs"].push_back({{"name", "seq"}, {"sqnr_db", 30.0},
                          {"task", {{"type", "ctc"}, {"samples", 128}, {"same_sequence", 0.975}, {"token_error_rate", 0.008}}}});
  r["gate"]["thresholds"]["min_task_agreement"] = 0.97;
  const std::string plain = RenderTerminalReport(r, false);
  EXPECT_NE(plain.find("task (int8 vs float)"), std::string::npos) << plain;
  EXPECT_NE(plain.find("classification: 96.9% top-1 agree, 100.0% in float's top-5"), std::string::npos) << plain;
  EXPECT_NE(plain.find("ctc: 97.5% same text, token error 0.80%"), std::string::npos) << plain;
  const std::string colour = RenderTerminalReport(r, true);
  EXPECT_NE(colour.find("\x1b[31mclassification: 96.9%"), std::string::npos) << colour;  // below 0.97
  EXPECT_EQ(colour.find("\x1b[31mctc:"), std::string::npos) << colour;
  EXPECT_EQ(RenderTerminalReport(SyntheticReport(), false).find("task (int8 vs float)"), std::string::npos);
}

}  // namespace
}  // namespace ptq
