// RenderInspection: ptq inspect's human-readable summary of a ModelInspection.
#include <algorithm>
#include <sstream>

#include "report/model_inspect.h"

namespace ptq {
namespace {

// Control characters (from names and metadata in the file) replaced by '?'.
std::string Clean(const std::string& s) {
  std::string out = s;
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return out;
}

std::string Grouped(int64_t v) {
  std::string digits = std::to_string(v < 0 ? -v : v), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return (v < 0 ? "-" : "") + out;
}

std::string Bytes(int64_t b) {
  std::ostringstream o;
  o.setf(std::ios::fixed);
  o.precision(1);
  if (b < 1024) o << b << " B";
  else if (b < 1024 * 1024) o << b / 1024.0 << " KiB";
  else if (b < int64_t{1024} * 1024 * 1024) o << b / (1024.0 * 1024) << " MiB";
  else o << b / (1024.0 * 1024 * 1024) << " GiB";
  return o.str();
}

std::string Pad(const std::string& s, size_t width) { return s.size() >= width ? s : s + std::string(width - s.size(), ' '); }
std::string PadLeft(const std::string& s, size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

std::string Shape(const DeclaredValue& v) {
  if (!v.has_shape) return "(no shape)";
  std::string s = "[";
  for (size_t i = 0; i < v.dims.size(); ++i) s += (i ? ", " : "") + v.dims[i];
  return s + "]";
}

void Values(std::ostringstream& o, const char* title, const std::vector<DeclaredValue>& vs) {
  o << title << ":\n";
  size_t w = 0;
  for (const auto& v : vs) w = std::max(w, Clean(v.name).size());
  for (const auto& v : vs) o << "  " << Pad(Clean(v.name), w) << "  " << Pad(v.type, 8) << "  " << Clean(Shape(v)) << "\n";
}

void Macs(std::ostringstream& o, const MacCount& m) {
  o << "MatMul/Gemm/Conv work: ";
  if (m.total == 0) {
    o << (m.unknown.empty() ? "none" : "unknown (no shape could be found)") << "\n";
  } else {
    std::ostringstream pct;
    pct.setf(std::ios::fixed);
    pct.precision(1);
    pct << 100 * m.integer_share();
    o << pct.str() << "% integer (" << Grouped(m.integer) << " of " << Grouped(m.total) << " MACs per run)\n";
  }
  std::vector<std::pair<std::string, int64_t>> ops(m.by_op.begin(), m.by_op.end());
  std::sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) { return a.second != b.second ? a.second > b.second : a.first < b.first; });
  size_t w = 0;
  for (const auto& [op, macs] : ops) w = std::max(w, op.size());
  for (const auto& [op, macs] : ops) o << "  " << Pad(op, w) << "  " << PadLeft(Grouped(macs), 16) << "\n";
  for (const AssumedDim& d : m.assumed) {
    o << "  assumed: input '" << Clean(d.input) << "' dim " << d.dim << (d.param.empty() ? "" : " ('" + Clean(d.param) + "')")
      << " = " << d.value << "\n";
  }
  for (const auto& i : m.no_shape_inputs) o << "  input '" << Clean(i) << "' declares no shape: what it reaches may be unknown\n";
  for (const auto& u : m.unknown) o << "  not counted: " << Clean(u) << "\n";
  if (m.subgraph_nodes > 0) o << "  not counted: " << m.subgraph_nodes << " node(s) inside If/Loop/Scan bodies\n";
}

}  // namespace

std::string RenderInspection(const ModelInspection& m) {
  std::ostringstream o;
  o << "model: " << Clean(m.path) << "  " << Bytes(m.file_bytes + m.external_bytes);
  if (!m.external_files.empty()) {
    o << " (" << Bytes(m.file_bytes) << " .onnx + " << Bytes(m.external_bytes) << " external data in "
      << m.external_files.size() << " file" << (m.external_files.size() == 1 ? "" : "s") << ")";
  }
  o << "\nir_version " << m.ir_version << ", opsets";
  for (const auto& [domain, version] : m.opsets) o << " " << Clean(domain) << ":" << version;
  if (!m.producer_name.empty() || !m.producer_version.empty()) {
    o << ", producer " << Clean(m.producer_name) << (m.producer_version.empty() ? "" : " " + Clean(m.producer_version));
  }
  o << "\n";
  Values(o, "inputs", m.inputs);
  Values(o, "outputs", m.outputs);
  o << "ops (" << m.nodes << " nodes):\n";
  std::vector<std::pair<std::string, int64_t>> ops(m.op_counts.begin(), m.op_counts.end());
  std::sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) { return a.second != b.second ? a.second > b.second : a.first < b.first; });
  size_t w = 0;
  for (const auto& [op, n] : ops) w = std::max(w, Clean(op).size());
  for (const auto& [op, n] : ops) o << "  " << Pad(Clean(op), w) << "  " << PadLeft(std::to_string(n), 6) << "\n";
  o << "weights:\n  " << Pad("type", 10) << PadLeft("tensors", 8) << PadLeft("elements", 16) << PadLeft("bytes", 16) << "\n";
  for (const auto& [type, c] : m.weights) {
    o << "  " << Pad(type, 10) << PadLeft(Grouped(c.tensors), 8) << PadLeft(Grouped(c.elements), 16)
      << PadLeft(Grouped(c.bytes), 16) << "\n";
  }
  Macs(o, m.macs);
  if (!m.metadata.empty()) {
    o << "metadata:\n";
    for (const auto& [k, v] : m.metadata) o << "  " << Clean(k) << ": " << Clean(v) << "\n";
  }
  return o.str();
}

}  // namespace ptq
