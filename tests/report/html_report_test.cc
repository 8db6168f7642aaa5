// Tests of the HTML report: escaping, one SQNR bar per layer, gate styling, "inf" SQNR, missing fields.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "report/html_report.h"
#include "report/svg_chart.h"

namespace ptq {
namespace {

using nlohmann::json;

size_t Count(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t pos = haystack.find(needle); pos != std::string::npos; pos = haystack.find(needle, pos + 1)) ++n;
  return n;
}

json Histogram(double lo, double hi) {
  json counts = json::array();
  for (int i = 0; i < 64; ++i) counts.push_back((i - 32) * (i - 32) < 100 ? 1000 - 9 * (i - 32) * (i - 32) : 2);
  return {{"lo", lo}, {"hi", hi}, {"counts", counts}};
}

// A report with a failing gate, an infinite and a huge SQNR and a tensor name that needs escaping.
json SyntheticReport() {
  json r = {{"format", "ptq-report"}, {"version", 1}};
  r["provenance"] = {{"ptq_version", "0.1.0"}, {"model", "models/float<1>.onnx"}, {"quantized_model", "out/int8.onnx"},
                     {"method", "percentile"}, {"quantization_format", "qoperator"},
                     {"calibration_samples", 64}, {"validation_samples", 128}};
  r["model"] = {{"float_bytes", 299993}, {"int8_bytes", 116216}, {"op_counts", {{"QLinearMatMul", 2}, {"Add", 26}}}};
  r["outputs"] = json::array({{{"name", "logits"}, {"max_abs_error", 0.05}, {"mean_abs_error", 0.004}, {"rmse", 0.006},
                               {"cosine", 0.9998}, {"sqnr_db", 22.1},
                               {"top1", {{"float", 0.969}, {"int8", 0.977}, {"agreement", 0.992}}}}});
  r["layers"] = json::array();
  r["layers"].push_back({{"tensor", "a<b>&\"c'"}, {"op", "MatMul"}, {"node", "n<0>"}, {"sqnr_db", 12.5},
                         {"cosine", 0.97}, {"dtype", "uint8"}, {"scale", 0.0123}, {"zero_point", 128},
                         {"range", {-1.5, 1.5}}, {"clipped_fraction", 0.0004}, {"histogram", Histogram(-3, 3)}});
  r["layers"].push_back({{"tensor", "/blocks.0/mlp/Gelu_output_0"}, {"op", "Gelu"}, {"sqnr_db", 31.0},
                         {"range", {-0.2, 4.0}}, {"histogram", Histogram(-0.5, 5)}});
  r["layers"].push_back({{"tensor", "huge"}, {"op", "Reshape"}, {"sqnr_db", 1e300}});
  r["layers"].push_back({{"tensor", "exact"}, {"op", "Relu"}, {"sqnr_db", "inf"}});
  r["recovery"] = json::array({{{"node", "n<0>"}, {"tensor", "a<b>&\"c'"}, {"output_sqnr_db", 27.4}, {"gain_db", 5.3}}});
  r["gate"] = {{"thresholds", {{"min_sqnr_db", 25.0}, {"max_top1_drop", 0.01}}}, {"passed", false},
               {"failures", {"output 'logits': SQNR 22.1 dB < min_sqnr_db 25"}}};
  return r;
}

TEST(HtmlReport, IsOneSelfContainedPage) {
  const std::string html = RenderHtmlReport(SyntheticReport());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("</html>"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(Count(html, "href="), 0u);
  EXPECT_EQ(Count(html, "src="), 0u);
  EXPECT_NE(html.find("ptq version"), std::string::npos);
  EXPECT_NE(html.find("Top-1 int8"), std::string::npos);
  EXPECT_NE(html.find("keep <code>n&lt;0&gt;</code> in float: <b>+5.3 dB</b>"), std::string::npos);
}

TEST(HtmlReport, EscapesEveryStringFromTheReport) {
  const std::string html = RenderHtmlReport(SyntheticReport());
  EXPECT_EQ(html.find("a<b>"), std::string::npos);
  EXPECT_EQ(html.find("n<0>"), std::string::npos);
  EXPECT_EQ(html.find("float<1>"), std::string::npos);
  EXPECT_NE(html.find("a&lt;b&gt;&amp;&quot;c&#39;"), std::string::npos);
  EXPECT_NE(html.find("output &#39;logits&#39;: SQNR 22.1 dB &lt; min_sqnr_db 25"), std::string::npos);
}

TEST(HtmlReport, ChartHasOneBarPerLayerAndTheThresholdLine) {
  const std::string html = RenderHtmlReport(SyntheticReport());
  EXPECT_EQ(Count(html, "<rect class=\"sqnr-bar"), 4u);
  EXPECT_EQ(Count(html, "<rect class=\"sqnr-bar bad\""), 1u);   // 12.5 < 25
  EXPECT_EQ(Count(html, "<rect class=\"sqnr-bar over\""), 2u);  // 1e300 and inf past the capped axis
  EXPECT_EQ(Count(html, "class=\"threshold-line\""), 1u);
  EXPECT_EQ(Count(html, "class=\"histogram\""), 2u);  // only the layers with a histogram
  EXPECT_EQ(Count(html, "class=\"clip-line\""), 4u);
}

TEST(HtmlReport, FailedGateIsStyledAsFailed) {
  const std::string html = RenderHtmlReport(SyntheticReport());
  EXPECT_NE(html.find("<div class=\"gate fail\">Accuracy gate: <span class=\"status\">FAILED</span>"), std::string::npos);
  EXPECT_EQ(html.find("gate pass"), std::string::npos);
  json passed = SyntheticReport();
  passed["gate"]["passed"] = true;
  passed["gate"]["failures"] = json::array();
  EXPECT_NE(RenderHtmlReport(passed).find("<div class=\"gate pass\">Accuracy gate: <span class=\"status\">PASSED"), std::string::npos);
}

TEST(HtmlReport, InfiniteAndHugeSqnrAreShownShort) {
  const std::string html = RenderHtmlReport(SyntheticReport());
  EXPECT_NE(html.find("∞ dB"), std::string::npos);
  EXPECT_NE(html.find("1e+300 dB"), std::string::npos);
  EXPECT_EQ(html.find("inf dB"), std::string::npos);
  EXPECT_EQ(html.find("nan"), std::string::npos);
  EXPECT_EQ(FormatSqnr(std::nullopt), "—");
}

TEST(HtmlReport, MissingOptionalFieldsAndWrongTypesDoNotCrash) {
  json r = SyntheticReport();
  r.erase("gate");
  r.erase("recovery");
  r["outputs"][0].erase("top1");
  for (json& l : r["layers"]) l.erase("histogram");
  const std::string html = RenderHtmlReport(r);
  EXPECT_NE(html.find("gate none"), std::string::npos);
  EXPECT_EQ(html.find("Top-1"), std::string::npos);
  EXPECT_EQ(html.find("class=\"histogram\""), std::string::npos);
  EXPECT_EQ(html.find("threshold-line"), std::string::npos);
  EXPECT_EQ(Count(html, "<rect class=\"sqnr-bar"), 4u);

  json broken = SyntheticReport();
  broken["layers"][0]["sqnr_db"] = "n/a";
  broken["layers"][0]["range"] = "wide";
  broken["layers"][0]["histogram"] = {{"lo", 1}, {"hi", 1}, {"counts", "many"}};
  broken["layers"][1]["histogram"]["counts"][3] = "x";
  broken["gate"]["thresholds"] = 7;
  broken["outputs"].push_back(3);
  broken["model"] = nullptr;
  EXPECT_NE(RenderHtmlReport(broken).find("</html>"), std::string::npos);
  EXPECT_NE(RenderHtmlReport(json::object()).find("No layers in the report"), std::string::npos);
  EXPECT_NE(RenderHtmlReport(json::array()).find("</html>"), std::string::npos);
  EXPECT_NE(RenderHtmlReport(json({{"layers", json::array()}, {"outputs", json::array()}})).find("</html>"),
            std::string::npos);
}

TEST(HtmlReport, ShortenMiddleKeepsBothEndsAndCodePoints) {
  EXPECT_EQ(ShortenMiddle("abcdef", 6), "abcdef");
  EXPECT_EQ(ShortenMiddle("abcdefgh", 5), "ab…gh");
  EXPECT_EQ(ShortenMiddle("ééééééé", 3), "é…é");
}

// Each output's task figures in words, in a Task column; below min_task_agreement it is marked bad.
TEST(HtmlReport, TaskColumnSaysWhatQuantizationDidToTheTask) {
  json r = SyntheticReport();
  r["outputs"][0]["task"] = {{"type", "ctc"}, {"samples", 128}, {"same_sequence", 0.875}, {"token_error_rate", 0.0125}};
  r["outputs"].push_back({{"name", "maps<1>"}, {"sqnr_db", 30.0},
                          {"task", {{"type", "text_detection"}, {"samples", 32}, {"float_boxes", 202}, {"int8_boxes", 204},
                                    {"matched", 202}, {"recall", 1.0}, {"precision", 202.0 / 204}}}});
  r["gate"]["thresholds"]["min_task_agreement"] = 0.9;
  const std::string html = RenderHtmlReport(r);
  EXPECT_NE(html.find("<th>Task (int8 vs float)</th>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"task bad\">ctc: 87.5% same text, token error 1.25%</td>"), std::string::npos) << html;
  EXPECT_NE(html.find("<td class=\"task\">text_detection: 100.0% of 202 float boxes matched, precision 99.0% (204 int8 boxes)</td>"),
            std::string::npos);
  // Without tasks there is no column.
  EXPECT_EQ(RenderHtmlReport(SyntheticReport()).find("Task (int8 vs float)"), std::string::npos);
}

}  // namespace
}  // namespace ptq
