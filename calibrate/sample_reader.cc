// Calibration samples: finding each input's data, checking it against the model, reading batches.
#include "calibrate/sample_reader.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <tuple>

#include "calibrate/npz_reader.h"
#include "calibrate/sample_checks.h"
#include "runtime/file_util.h"
#include "runtime/float16.h"
#include "runtime/tensor_proto.h"

namespace ptq {

namespace fs = std::filesystem;

struct SampleReader::Input {
  ValueInfo info;
  std::string what;  // the .npy file, "archive.npz:key", or "<folder>/input_N.pb" of the first sample
  DataType dtype = DataType::kUndefined;
  Shape shape;                // .npy/.npz: the array's shape, axis 0 counting rows
  int64_t rows = 1;           // rows per sample: the model's fixed dim 0 B, else 1
  bool scalar = false;        // rank-0 model input: one element per sample, fed with shape []
  int64_t data_offset = 0;    // .npy: where the data starts in the file
  int64_t data_bytes = 0;     // .npy: how many data bytes follow it
  std::unique_ptr<std::ifstream> file;      // .npy
  Tensor ahead;                             // .npy: data bytes [ahead_start, ahead_start + ahead_bytes)
  int64_t ahead_start = 0, ahead_bytes = 0;
  std::shared_ptr<const NpzArchive> npz;    // .npz, with `key`; `whole` once inflated
  std::string key;
  Tensor whole;
  std::vector<std::string> pb_files;  // test_data_set_*: the file of each selected sample
  std::vector<Shape> pb_shapes;
  int64_t nan = 0, inf = 0;
};

namespace {

// Checks a row array (.npy or .npz entry) against its model input; returns the number of samples.
int64_t CheckRows(SampleReader::Input* in, std::map<std::string, std::pair<int64_t, std::string>>* syms,
                  std::vector<std::string>* notes) {
  const ValueInfo& v = in->info;
  CheckSampleShape(v, in->dtype, in->shape, 1, in->what, syms);
  if (in->shape.empty()) ThrowDataError(in->what, ": model input '", v.name, "' needs an array whose first axis counts samples, not a scalar");
  in->scalar = v.has_shape && v.shape.empty();
  if (v.has_shape && !v.shape.empty() && v.shape[0].value >= 0) in->rows = v.shape[0].value;
  if (in->rows == 0) ThrowDataError(in->what, ": model input '", v.name, "' has dimension 0 fixed to 0; it cannot take samples");
  const int64_t samples = in->shape[0] / in->rows;
  if (samples == 0) {
    ThrowDataError(in->what, ": no samples for model input '", v.name, "' (", in->shape[0], " rows", in->rows > 1 ? StrCat(", ", in->rows, " per sample") : "", ")");
  }
  if (in->shape[0] % in->rows != 0) {
    notes->push_back(StrCat(in->what, ": model input '", v.name, "' takes ", in->rows, " rows per sample (fixed dimension 0); the last ",
                            in->shape[0] % in->rows, " of ", in->shape[0], " rows are not used"));
  }
  return samples;
}

// Folders named test_data_set_<N>, ordered by N (others after, by name).
std::vector<std::string> SortedTestSets(std::vector<std::string> names) {
  auto key = [](const std::string& n) {
    const std::string s = n.substr(14);
    const bool num = !s.empty() && s.size() < 18 && s.find_first_not_of("0123456789") == std::string::npos;
    return std::make_tuple(!num, num ? std::stoll(s) : 0, n);
  };
  std::sort(names.begin(), names.end(), [&](const std::string& a, const std::string& b) { return key(a) < key(b); });
  return names;
}

using Inputs = std::vector<std::unique_ptr<SampleReader::Input>>;

std::string Join(const std::vector<std::string>& items) {
  std::string s;
  for (const std::string& i : items) s += (s.empty() ? "" : ", ") + i;
  return s;
}

// Missing and extra data are reported together, naming every input and file concerned.
void CheckMatched(const std::string& where, const std::vector<std::string>& missing, const std::vector<std::string>& extra,
                  const char* noun) {
  if (!missing.empty()) ThrowDataError(where, ": no data for model input(s) ", Join(missing));
  if (!extra.empty()) ThrowDataError(where, ": ", noun, " ", Join(extra), " match(es) no input of the model");
}

// <input>.npy files: only each header is read here.
Inputs NpyInputs(const Graph& graph, const std::string& dir, const std::set<std::string>& files) {
  Inputs inputs;
  std::vector<std::string> missing, extra;
  std::map<std::string, std::string> used;  // file -> input
  for (const ValueInfo& v : graph.inputs) {
    const std::string file = SanitizeFileName(v.name) + ".npy";
    if (!used.emplace(file, v.name).second) {
      ThrowDataError(dir, ": model inputs '", used[file], "' and '", v.name, "' both map to the file name ", file);
    }
    if (!files.count(file)) {
      missing.push_back(StrCat("'", v.name, "' (expected ", file, ")"));
      continue;
    }
    auto in = std::make_unique<SampleReader::Input>();
    in->info = v;
    in->what = (fs::path(dir) / file).string();
    const int64_t size = FileSize(in->what);
    in->file = std::make_unique<std::ifstream>(in->what, std::ios::binary);
    std::string first(static_cast<size_t>(std::min<int64_t>(size, 12)), '\0');
    if (!in->file->read(first.data(), static_cast<std::streamsize>(first.size()))) ThrowDataError(in->what, ": cannot read");
    const int64_t header_size = NpyHeaderSize(first, in->what);
    if (header_size > size) ThrowDataError(in->what, ": truncated .npy header");
    std::string prefix(static_cast<size_t>(header_size), '\0');
    in->file->seekg(0);
    in->file->read(prefix.data(), header_size);
    const NpyHeader h = ParseNpyHeader(prefix, in->what);
    if (size - h.data_offset != h.data_bytes) {
      ThrowDataError(in->what, ": .npy header says shape ", ShapeToString(h.shape), " of ", DataTypeName(h.dtype),
                      " but the file holds ", size - h.data_offset, " data bytes");
    }
    in->dtype = h.dtype;
    in->shape = h.shape;
    in->data_offset = h.data_offset;
    in->data_bytes = h.data_bytes;
    inputs.push_back(std::move(in));
  }
  for (const std::string& f : files) {
    if (!used.count(f)) extra.push_back(f);
  }
  CheckMatched(dir, missing, extra, "file(s)");
  return inputs;
}

// .npz keys: the input's name, or its sanitized form. Only each entry's header is inflated here.
Inputs NpzInputs(const Graph& graph, const std::string& path) {
  auto npz = std::make_shared<const NpzArchive>(NpzArchive::Open(path));
  Inputs inputs;
  std::vector<std::string> missing, extra;
  std::set<std::string> used;
  for (const ValueInfo& v : graph.inputs) {
    const std::string key = npz->Has(v.name) ? v.name : SanitizeFileName(v.name);
    if (!npz->Has(key) || !used.insert(key).second) {
      missing.push_back("'" + v.name + "'");
      continue;
    }
    auto in = std::make_unique<SampleReader::Input>();
    in->info = v;
    in->what = path + ":" + key;
    in->npz = npz;
    in->key = key;
    const NpyHeader h = npz->ReadHeader(key);
    in->dtype = h.dtype;
    in->shape = h.shape;
    inputs.push_back(std::move(in));
  }
  for (const std::string& k : npz->keys()) {
    if (!used.count(k)) extra.push_back("'" + k + "'");
  }
  CheckMatched(path, missing, extra, "key(s)");
  return inputs;
}

// test_data_set_* folders: the input_N.pb files of the selected folders are read and checked.
Inputs TestSetInputs(const Graph& graph, const std::vector<std::string>& folders) {
  Inputs inputs;
  for (const ValueInfo& v : graph.inputs) {
    inputs.push_back(std::make_unique<SampleReader::Input>());
    inputs.back()->info = v;
  }
  for (const std::string& folder : folders) {
    std::vector<std::pair<int64_t, std::string>> pbs;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(folder, ec)) {
      const std::string n = e.path().filename().string();
      const std::string num = n.size() > 9 ? n.substr(6, n.size() - 9) : "";
      if (n.rfind("input_", 0) != 0 || e.path().extension() != ".pb") continue;
      if (num.empty() || num.size() > 9 || num.find_first_not_of("0123456789") != std::string::npos) {
        ThrowDataError(e.path().string(), ": expected a file named input_<N>.pb");
      }
      pbs.emplace_back(std::stoll(num), e.path().string());
    }
    std::sort(pbs.begin(), pbs.end());
    std::vector<std::string> got(inputs.size());
    std::map<std::string, std::pair<int64_t, std::string>> syms;
    for (const auto& [n, file] : pbs) {
      std::string name;
      Tensor t = ReadTensorProtoFile(file, &name);
      size_t i = 0;
      while (i < inputs.size() && inputs[i]->info.name != name) ++i;
      if (i == inputs.size() && n < static_cast<int64_t>(inputs.size())) i = static_cast<size_t>(n);  // by position
      if (i == inputs.size()) ThrowDataError(file, ": tensor '", name, "' matches no input of the model (", inputs.size(), " inputs)");
      if (!got[i].empty()) ThrowDataError(folder, ": ", got[i], " and ", file, " both hold model input '", inputs[i]->info.name, "'");
      got[i] = file;
      CheckSampleShape(inputs[i]->info, t.dtype(), t.shape(), 0, file, &syms);
      if (t.rank() > 0 && t.dim(0) == 0) ThrowDataError(file, ": model input '", inputs[i]->info.name, "' holds no samples (shape ", ShapeToString(t.shape()), ")");
      inputs[i]->dtype = t.dtype();
      inputs[i]->pb_files.push_back(file);
      inputs[i]->pb_shapes.push_back(t.shape());
    }
    std::vector<std::string> missing;
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (got[i].empty()) missing.push_back("'" + inputs[i]->info.name + "'");
    }
    CheckMatched(folder, missing, {}, "");
  }
  for (auto& in : inputs) in->what = in->pb_files.front();
  return inputs;
}

}  // namespace

SampleReader::SampleReader() = default;
SampleReader::SampleReader(SampleReader&&) noexcept = default;
SampleReader& SampleReader::operator=(SampleReader&&) noexcept = default;
SampleReader::~SampleReader() = default;

SampleReader SampleReader::Open(const Graph& graph, const std::string& data_path, const SampleOptions& o) {
  if (o.batch_size < 1) ThrowUsageError("calibration.batch_size must be at least 1, not ", o.batch_size);
  if (o.max_samples == 0) ThrowUsageError("calibration.max_samples must be positive, not 0");
  if (o.shard_count < 1 || o.shard_index < 0 || o.shard_index >= o.shard_count) {
    ThrowUsageError("shard ", o.shard_index, "/", o.shard_count, " is not valid: K/N needs 0 <= K < N");
  }
  if (graph.inputs.empty()) ThrowDataError(graph.source, ": the model has no inputs to feed samples to");
  for (const ValueInfo& v : graph.inputs) {
    if (!v.is_tensor) ThrowDataError(graph.source, ": model input '", v.name, "' is not a tensor; only tensor inputs can be fed");
  }
  SampleReader r;
  r.shard_index_ = o.shard_index;
  r.shard_count_ = o.shard_count;
  auto select = [&](int64_t total) {
    r.total_ = total;
    const int64_t m = o.max_samples < 0 ? total : std::min(total, o.max_samples);
    r.selected_ = m > o.shard_index ? (m - o.shard_index + o.shard_count - 1) / o.shard_count : 0;
    if (r.selected_ == 0) ThrowDataError(data_path, ": shard ", o.shard_index, "/", o.shard_count, " selects none of the ", m, " samples");
  };
  std::error_code ec;
  const fs::path path(data_path);
  std::vector<std::string> sets;
  std::set<std::string> npy;
  if (fs::is_directory(path, ec)) {
    for (const auto& e : fs::directory_iterator(path, ec)) {
      const std::string n = e.path().filename().string();
      if (e.is_directory(ec) && n.rfind("test_data_set_", 0) == 0) sets.push_back(n);
      if (!e.is_directory(ec) && e.path().extension() == ".npy") npy.insert(n);
    }
    if (!sets.empty() && !npy.empty()) ThrowDataError(data_path, ": holds both .npy files and test_data_set_* folders; use one layout");
    if (sets.empty() && npy.empty()) {
      ThrowDataError(data_path, ": no samples: expected <input_name>.npy files or test_data_set_* folders, found neither");
    }
  } else if (path.extension() == ".npz" && fs::is_regular_file(path, ec)) {
    r.inputs_ = NpzInputs(graph, data_path);
  } else {
    ThrowDataError(data_path, fs::exists(path, ec) ? ": neither a folder nor an .npz file" : ": not found");
  }
  if (!sets.empty()) {
    sets = SortedTestSets(sets);
    select(static_cast<int64_t>(sets.size()));
    for (int64_t j = 0; j < r.selected_; ++j) r.folders_.push_back((path / sets[static_cast<size_t>(r.SampleAt(j))]).string());
    r.inputs_ = TestSetInputs(graph, r.folders_);
  } else {
    if (!npy.empty()) r.inputs_ = NpyInputs(graph, data_path, npy);
    std::map<std::string, std::pair<int64_t, std::string>> syms;
    std::string counts;
    int64_t total = -1;
    bool same = true;
    for (auto& in : r.inputs_) {
      const int64_t n = CheckRows(in.get(), &syms, &r.notes_);
      same = same && (total < 0 || n == total);
      total = total < 0 ? n : std::min(total, n);
      counts += StrCat(counts.empty() ? "" : ", ", in->what, " has ", n);
    }
    if (!same) ThrowDataError(data_path, ": the inputs hold different numbers of samples: ", counts);
    select(total);
  }
  r.batch_ = o.batch_size;
  for (const auto& in : r.inputs_) {
    if (!FreeBatch(in->info) && r.batch_ > 1) {
      r.batch_ = 1;
      r.notes_.push_back(StrCat("calibration.batch_size ", o.batch_size, " is not used: model input '", in->info.name,
                                "' has shape ", DeclaredShapeString(in->info), in->info.shape.empty() ? "" : " with a fixed first dimension",
                                "; one sample per run"));
    }
  }
  return r;
}

// Copies `len` data bytes of an .npy input from data offset `src` to dst, through a read-ahead buffer of
// up to kReadAhead bytes: one read (system call) per kReadAhead bytes rather than per batch. The buffer
// is a tensor's (runtime/buffer_pool.h: no page fault per 4 KiB of it), allocated once. Reads of
// kReadAhead bytes or more (large batches), and reads of a shard whose next sample lies beyond the
// read-ahead (every N-th sample of large samples), go straight to dst.
void SampleReader::ReadNpyData(Input* in, int64_t src, int64_t len, char* dst) const {
  constexpr int64_t kReadAhead = int64_t{256} << 10;
  if (len >= kReadAhead || len * shard_count_ > kReadAhead) {
    in->file->clear();
    in->file->seekg(in->data_offset + src);
    if (!in->file->read(dst, len)) ThrowDataError(in->what, ": short read (was the file changed?)");
    return;
  }
  if (src < in->ahead_start || src + len > in->ahead_start + in->ahead_bytes) {
    const int64_t want = std::max(len, std::min(kReadAhead, in->data_bytes - src));
    if (static_cast<int64_t>(in->ahead.nbytes()) < want) {
      in->ahead = Tensor::Uninitialized(DataType::kUint8, {std::max(want, std::min(kReadAhead, in->data_bytes))});
    }
    in->ahead_start = src;
    in->ahead_bytes = 0;
    in->file->clear();
    in->file->seekg(in->data_offset + src);
    if (!in->file->read(static_cast<char*>(in->ahead.raw()), want)) {
      ThrowDataError(in->what, ": short read (was the file changed?)");
    }
    in->ahead_bytes = want;
  }
  std::memcpy(dst, static_cast<const char*>(in->ahead.raw()) + (src - in->ahead_start), static_cast<size_t>(len));
}

bool SampleReader::Next(std::map<std::string, Tensor>* batch, int64_t* samples_in_batch) {
  if (next_ >= selected_) return false;
  int64_t k = std::min(batch_, selected_ - next_);
  if (!folders_.empty()) {  // test_data_set samples join a batch only while their dims after the first agree
    for (int64_t j = next_ + 1; j < next_ + k; ++j) {
      for (const auto& in : inputs_) {
        const Shape& a = in->pb_shapes[static_cast<size_t>(next_)];
        const Shape& b = in->pb_shapes[static_cast<size_t>(j)];
        if (a.empty() || b.empty() || !std::equal(a.begin() + 1, a.end(), b.begin() + 1, b.end())) k = std::min(k, j - next_);
      }
    }
  }
  batch->clear();
  for (const auto& in : inputs_) {
    Tensor t;
    if (!folders_.empty()) {
      std::vector<Tensor> parts;
      for (int64_t j = next_; j < next_ + k; ++j) parts.push_back(ReadTensorProtoFile(in->pb_files[static_cast<size_t>(j)]));
      t = k == 1 ? parts.front() : ConcatRows(parts);
    } else {
      if (in->npz && in->whole.empty_value()) {
        in->whole = in->npz->Read(in->key);
        if (in->whole.shape() != in->shape) throw Error(ErrorKind::kInternal, in->what + ": shape changed after its header was read");
      }
      Shape shape = in->shape;
      shape[0] = k * in->rows;
      t = Tensor::Uninitialized(in->dtype, in->scalar ? Shape{} : shape);  // every byte is read below
      const int64_t sample_bytes = static_cast<int64_t>(t.nbytes()) / k;
      // With one shard the samples of a batch are contiguous: one read; otherwise one read per sample.
      const int64_t run = shard_count_ == 1 ? k : 1;
      for (int64_t i = 0; i < k; i += run) {
        const int64_t src = SampleAt(next_ + i) * sample_bytes;
        char* dst = static_cast<char*>(t.raw()) + i * sample_bytes;
        if (in->npz) {
          std::memcpy(dst, static_cast<const char*>(in->whole.raw()) + src, static_cast<size_t>(run * sample_bytes));
        } else {
          ReadNpyData(in.get(), src, run * sample_bytes, dst);
        }
      }
    }
    CountNonFinite(t, &in->nan, &in->inf);
    (*batch)[in->info.name] = std::move(t);
  }
  next_ += k;
  *samples_in_batch = k;
  return true;
}

std::vector<std::string> SampleReader::warnings() const {
  std::vector<std::string> out = notes_;
  for (const auto& in : inputs_) {
    if (in->nan + in->inf > 0) {
      out.push_back(StrCat(folders_.empty() ? in->what : "test_data_set_* folders", ": model input '", in->info.name, "' has ", in->nan,
                           " NaN and ", in->inf, " infinite values in the samples read so far"));
    }
  }
  return out;
}

SampleSourceFactory FileSamples(const std::string& data_path) {
  return [data_path](const Graph& graph, const SampleOptions& options) -> std::unique_ptr<SampleSource> {
    return std::make_unique<SampleReader>(SampleReader::Open(graph, data_path, options));
  };
}

}  // namespace ptq
