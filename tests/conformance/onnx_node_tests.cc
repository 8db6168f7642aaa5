// Runs ONNX's backend node tests (Debian's libonnx-testdata) whose ops are all registered:
// integer outputs must match exactly, float ones within ONNX's tolerance (rtol 1e-3, atol 1e-7).
// Usage: ptq_conformance [--data DIR] [--list FILE] [substring...]
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "runtime/feeds.h"
#include "runtime/graph.h"
#include "runtime/session.h"
#include "runtime/tensor_proto.h"
#include "tests/conformance/tensor_compare.h"

namespace fs = std::filesystem;

namespace {

constexpr double kRtol = 1e-3;
constexpr double kAtol = 1e-7;

// The expected-failure list: "test_name  # reason" per line.
std::map<std::string, std::string> ReadExpectedFailures(const std::string& path) {
  std::map<std::string, std::string> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const size_t hash = line.find('#');
    std::string name = line.substr(0, hash);
    name.erase(std::remove_if(name.begin(), name.end(), ::isspace), name.end());
    if (!name.empty()) out[name] = hash == std::string::npos ? "" : line.substr(hash + 1);
  }
  return out;
}

// ONNX stores bfloat16 test data as uint16 tensors of the same bits (numpy has no bfloat16): where
// the model declares bfloat16, such a tensor is read as the bfloat16 it encodes.
ptq::Tensor AsDeclared(const ptq::Tensor& t, ptq::DataType declared) {
  if (declared != ptq::DataType::kBfloat16 || t.dtype() != ptq::DataType::kUint16) return t;
  ptq::Tensor out(ptq::DataType::kBfloat16, t.shape());
  if (t.nbytes() > 0) std::memcpy(out.raw(), t.raw(), t.nbytes());
  return out;
}

// Runs one test folder; returns "" on success or the reason it failed. Sets *skip_reason instead
// when the model uses an op ptq does not register.
std::string RunTest(const fs::path& dir, std::string* skip_reason) {
  std::shared_ptr<const ptq::Graph> graph;
  try {
    graph = std::make_shared<const ptq::Graph>(ptq::LoadGraph((dir / "model.onnx").string()));
  } catch (const ptq::Error& e) {
    *skip_reason = std::string("model not loadable: ") + e.what();
    return "";
  }
  for (const auto* list : {&graph->inputs, &graph->outputs}) {
    for (const ptq::ValueInfo& v : *list) {
      if (!v.is_tensor || v.dtype == ptq::DataType::kString) {
        *skip_reason = "sequence, optional or string values";
        return "";
      }
    }
  }
  const auto unsupported = ptq::FindUnsupportedOps(*graph);
  if (!unsupported.empty()) {
    *skip_reason = "unsupported op " + unsupported[0].op_type;
    return "";
  }
  try {
    ptq::Session session(graph);
    std::vector<fs::path> sets;
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) sets.push_back(e.path());
    }
    std::sort(sets.begin(), sets.end());
    for (const fs::path& set : sets) {
      auto feeds = ptq::ReadFeedsFolder(*graph, set.string());
      for (const ptq::ValueInfo& in : graph->inputs) {
        auto it = feeds.find(in.name);
        if (it != feeds.end()) it->second = AsDeclared(it->second, in.dtype);
      }
      const std::vector<ptq::Tensor> outputs = session.Run(feeds);
      for (size_t i = 0; i < outputs.size(); ++i) {
        const fs::path ref = set / ("output_" + std::to_string(i) + ".pb");
        if (!fs::exists(ref)) continue;
        const ptq::Tensor expected = AsDeclared(ptq::ReadTensorProtoFile(ref.string()), graph->outputs[i].dtype);
        const std::string diff = ptq::CompareTensors(outputs[i], expected, kRtol, kAtol);
        if (!diff.empty()) return set.filename().string() + " output " + graph->outputs[i].name + ": " + diff;
      }
    }
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  std::string data = "/usr/share/libonnx-testdata/data/node";
  std::string list = std::string(PTQ_SOURCE_DIR) + "/tests/conformance/expected_failures.txt";
  std::vector<std::string> filters;
  bool verbose = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--data" && i + 1 < argc) data = argv[++i];
    else if (a == "--list" && i + 1 < argc) list = argv[++i];
    else if (a == "-v") verbose = true;
    else filters.push_back(a);
  }
  if (!fs::is_directory(data)) {
    std::cerr << "ptq_conformance: no test data at " << data << " (install libonnx-testdata)\n";
    return 1;
  }
  const auto expected_failures = ReadExpectedFailures(list);
  std::vector<fs::path> tests;
  for (const auto& e : fs::directory_iterator(data)) {
    const std::string name = e.path().filename().string();
    const bool match = filters.empty() ||
                       std::any_of(filters.begin(), filters.end(), [&](const std::string& f) { return name.find(f) != std::string::npos; });
    if (e.is_directory() && match) tests.push_back(e.path());
  }
  std::sort(tests.begin(), tests.end());
  int passed = 0, failed = 0, xfailed = 0, skipped = 0;
  std::map<std::string, int> skip_reasons;
  std::vector<std::string> failures, unexpected_passes;
  for (const fs::path& t : tests) {
    const std::string name = t.filename().string();
    std::string skip;
    const std::string err = RunTest(t, &skip);
    if (!skip.empty()) {
      ++skipped;
      ++skip_reasons[skip.substr(0, skip.find(':') == std::string::npos ? skip.size() : std::min(skip.size(), size_t{60}))];
      if (verbose) std::cout << "SKIP " << name << ": " << skip << "\n";
      continue;
    }
    const bool listed = expected_failures.count(name) != 0;
    if (err.empty()) {
      ++passed;
      if (listed) unexpected_passes.push_back(name);
      if (verbose) std::cout << "PASS " << name << "\n";
    } else if (listed) {
      ++xfailed;
      if (verbose) std::cout << "XFAIL " << name << ": " << err << "\n";
    } else {
      ++failed;
      failures.push_back(name + ": " + err);
      std::cout << "FAIL " << name << ": " << err << "\n";
    }
  }
  std::cout << "\nONNX node tests in " << data << ": " << tests.size() << " found, " << (passed + failed + xfailed)
            << " ran, " << passed << " passed, " << failed << " failed, " << xfailed
            << " expected failures (tests/conformance/expected_failures.txt), " << skipped << " skipped\n";
  std::vector<std::pair<int, std::string>> reasons;
  for (const auto& kv : skip_reasons) reasons.push_back({kv.second, kv.first});
  std::sort(reasons.rbegin(), reasons.rend());
  std::cout << "skipped because:";
  for (size_t i = 0; i < reasons.size(); ++i) std::cout << (i ? "," : "") << " " << reasons[i].second << " (" << reasons[i].first << ")";
  std::cout << "\n";
  for (const std::string& p : unexpected_passes) std::cout << "note: " << p << " is on the expected-failure list but passes\n";
  std::cout << passed << " passed, " << failed << " failed\n";
  return failed == 0 ? 0 : 1;
}
