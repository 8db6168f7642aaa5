// Reading one run's inputs from a folder of .npy or .pb files.
#include "runtime/feeds.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "runtime/file_util.h"
#include "runtime/npy.h"
#include "runtime/tensor_proto.h"

namespace ptq {

namespace fs = std::filesystem;

std::map<std::string, Tensor> ReadFeedsFolder(const Graph& graph, const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) ThrowDataError(dir, ": not a folder of inputs");
  std::vector<std::string> npy, pb;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (e.path().extension() == ".npy") npy.push_back(name);
    if (name.rfind("input_", 0) == 0 && e.path().extension() == ".pb") pb.push_back(name);
  }
  std::map<std::string, Tensor> feeds;
  if (!pb.empty() && npy.empty()) {
    // input_N.pb: sort by N (names whose N is not a number of at most 9 digits are errors).
    auto number = [&](const std::string& name) {
      const std::string n = name.substr(6, name.size() - 9);
      if (n.empty() || n.size() > 9 || n.find_first_not_of("0123456789") != std::string::npos) {
        ThrowDataError(dir, ": ", name, ": expected a file named input_<N>.pb");
      }
      return std::stoll(n);
    };
    for (const std::string& name : pb) number(name);
    std::sort(pb.begin(), pb.end(), [&](const std::string& a, const std::string& b) { return number(a) < number(b); });
    if (pb.size() > graph.inputs.size()) {
      ThrowDataError(dir, ": ", pb.size(), " input_N.pb files but the model has ", graph.inputs.size(), " inputs");
    }
    for (size_t i = 0; i < pb.size(); ++i) {
      std::string pname;
      Tensor t = ReadTensorProtoFile((fs::path(dir) / pb[i]).string(), &pname);
      const bool named = std::any_of(graph.inputs.begin(), graph.inputs.end(), [&](const ValueInfo& v) { return v.name == pname; });
      feeds[named ? pname : graph.inputs[i].name] = std::move(t);
    }
    return feeds;
  }
  std::set<std::string> used;
  for (const ValueInfo& in : graph.inputs) {
    const std::string file = SanitizeFileName(in.name) + ".npy";
    const fs::path path = fs::path(dir) / file;
    if (!fs::exists(path, ec)) {
      ThrowDataError(dir, ": no file ", file, " for model input '", in.name, "'");
    }
    feeds[in.name] = ReadNpy(path.string());
    used.insert(file);
  }
  for (const std::string& f : npy) {
    if (!used.count(f)) ThrowDataError(dir, ": file ", f, " matches no input of the model");
  }
  return feeds;
}

}  // namespace ptq
