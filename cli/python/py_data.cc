// PyData: the kinds of Python data, one-shot buffering, and dicts turned into chunks of tensors.
#include "cli/python/py_data.h"

#include <utility>
#include <vector>

#include "calibrate/chunk_samples.h"
#include "cli/python/py_arrays.h"
#include "cli/python/py_errors.h"
#include "runtime/error.h"

namespace py = pybind11;

namespace ptq::python {
namespace {

enum class Kind { kList, kCallable, kIterable, kRewindReader, kOneShotIterator, kOneShotReader };

// A Python object that may be dropped without the GIL (by a pass ending in C++).
using SharedObject = std::shared_ptr<py::object>;
SharedObject Share(py::object o) {
  return SharedObject(new py::object(std::move(o)), [](py::object* p) {
    py::gil_scoped_acquire gil;
    delete p;
  });
}

int64_t ChunkBytes(const Chunk& c) {
  int64_t n = 0;
  for (const auto& [name, t] : c) n += static_cast<int64_t>(t.nbytes());
  return n;
}

}  // namespace

struct PyData::State {
  py::object data;
  std::string what;
  Kind kind = Kind::kList;
  // One-shot data: the live iterator or reader, the batches read from it and those kept.
  py::object live;
  std::vector<Chunk> kept;
  int64_t kept_bytes = 0, consumed = 0, buffer_bytes = kOneShotBufferBytes;
  bool keeping = true, exhausted = false;
};

namespace {

using State = PyData::State;

// One yielded item as a chunk: every key a model input, each value converted to the input's dtype.
Chunk ToChunk(const py::handle& item, const std::vector<ValueInfo>& inputs, const std::string& what) {
  if (!py::isinstance<py::dict>(item)) {
    ThrowData(StrCat(what, ": expected a dict {input name: array}, got ", py::str(py::type::of(item).attr("__name__")).cast<std::string>()));
  }
  Chunk c;
  for (const auto& [key, value] : py::reinterpret_borrow<py::dict>(item)) {
    if (!py::isinstance<py::str>(key)) ThrowData(StrCat(what, ": the dict's keys must be input names (str), got ", py::repr(key).cast<std::string>()));
    const std::string name = key.cast<std::string>();
    DataType want = DataType::kUndefined;
    for (const ValueInfo& v : inputs) {
      if (v.name == name) want = v.dtype;
    }
    c[name] = ArrayToTensor(value, want, StrCat(what, ": model input '", name, "'"));
  }
  return c;
}

// The next item of a pass's iterator or reader, or None at the end. REQUIRES: GIL.
py::object NextItem(Kind kind, const py::object& it) {
  if (kind == Kind::kRewindReader || kind == Kind::kOneShotReader) return it.attr("get_next")();
  PyObject* item = PyIter_Next(it.ptr());
  if (!item) {
    if (PyErr_Occurred()) throw py::error_already_set();
    return py::none();
  }
  return py::reinterpret_steal<py::object>(item);
}

// A pass over re-iterable data.
struct Pass {
  std::shared_ptr<State> state;
  SharedObject iter;  // the pass's own iterator (or the reader)
  size_t index = 0;   // kList: the next item
  bool Pull(const std::vector<ValueInfo>& inputs, Chunk* out) {
    py::gil_scoped_acquire gil;
    CheckSignals();
    State& s = *state;
    const std::string what = StrCat(s.what, ", batch ", index + 1);
    py::object item;
    if (s.kind == Kind::kList) {
      const py::sequence seq = py::reinterpret_borrow<py::sequence>(s.data);
      if (index >= seq.size()) return false;
      item = seq[index];
    } else {
      item = NextItem(s.kind, *iter);
      if (item.is_none()) return false;
    }
    ++index;
    *out = ToChunk(item, inputs, what);
    return true;
  }
};

// A pass over one-shot data: the kept batches, then the live iterator where the last pass left it.
struct OneShotPass {
  std::shared_ptr<State> state;
  bool prefix_ok;
  int64_t index = 0;
  bool Pull(const std::vector<ValueInfo>& inputs, Chunk* out) {
    py::gil_scoped_acquire gil;
    CheckSignals();
    State& s = *state;
    const int64_t i = index++;
    if (i < static_cast<int64_t>(s.kept.size())) {
      *out = s.kept[static_cast<size_t>(i)];
      return true;
    }
    if (i == s.consumed && s.exhausted) return false;
    if (i != s.consumed) {  // the iterator has moved past batches that were not kept
      if (prefix_ok) return false;
      ThrowData(StrCat(s.what, " is a one-shot iterator and a second pass over it needs batch ", i + 1,
                       ", beyond the first ", s.kept.size(), " batches ptq keeps (one_shot_buffer_bytes ", s.buffer_bytes,
                       "); give re-iterable data: a list, or a callable returning a new iterator"));
    }
    py::object item = NextItem(s.kind, s.live);
    if (item.is_none()) {
      s.exhausted = true;
      return false;
    }
    ++s.consumed;
    *out = ToChunk(item, inputs, StrCat(s.what, ", batch ", i + 1));
    const int64_t bytes = ChunkBytes(*out);
    s.keeping = s.keeping && s.kept_bytes + bytes <= s.buffer_bytes;
    if (s.keeping) {
      s.kept.push_back(*out);
      s.kept_bytes += bytes;
    }
    return true;
  }
};

// Samples in a list of dicts, for progress (the first input's first axis over its rows per sample).
int64_t ListSamples(const State& s, const std::vector<ValueInfo>& inputs) {
  const ValueInfo& first = inputs.front();
  const int64_t rows = first.has_shape && !first.shape.empty() && first.shape[0].value > 0 ? first.shape[0].value : 1;
  int64_t n = 0;
  for (const py::handle item : py::reinterpret_borrow<py::sequence>(s.data)) {
    if (!py::isinstance<py::dict>(item)) return -1;
    const py::dict d = py::reinterpret_borrow<py::dict>(item);
    if (!d.contains(first.name)) return -1;
    const py::object shape = py::module_::import("numpy").attr("shape")(d[first.name.c_str()]);
    const py::tuple t = shape.cast<py::tuple>();
    n += t.empty() ? 1 : t[0].cast<int64_t>() / rows;
  }
  return n;
}

}  // namespace

PyData::PyData(py::object data, std::string what, int64_t buffer_bytes)
    : state_(new State, [](State* s) {
        py::gil_scoped_acquire gil;
        delete s;
      }) {
  State& s = *state_;
  s.what = std::move(what);
  s.buffer_bytes = buffer_bytes;
  if (py::isinstance<py::dict>(data)) data = py::make_tuple(data);  // one batch
  if (py::isinstance<py::list>(data) || py::isinstance<py::tuple>(data)) {
    s.kind = Kind::kList;
  } else if (py::hasattr(data, "get_next")) {
    s.kind = py::hasattr(data, "rewind") ? Kind::kRewindReader : Kind::kOneShotReader;
  } else if (py::hasattr(data, "__next__")) {
    s.kind = Kind::kOneShotIterator;
  } else if (py::hasattr(data, "__iter__")) {
    s.kind = Kind::kIterable;
  } else if (PyCallable_Check(data.ptr())) {
    s.kind = Kind::kCallable;
  } else {
    throw Error(ErrorKind::kUsage, StrCat(s.what, ": expected an iterable of dicts, a callable returning one, or a reader with get_next(); got ",
                                          py::str(py::type::of(data).attr("__name__")).cast<std::string>()));
  }
  if (s.kind == Kind::kOneShotIterator) s.live = py::iter(data);
  if (s.kind == Kind::kOneShotReader) s.live = data;
  s.data = std::move(data);
}

const std::string& PyData::what() const { return state_->what; }

SampleSourceFactory PyData::Factory(bool prefix_ok) const {
  const std::shared_ptr<State> state = state_;
  return [state, prefix_ok](const Graph& graph, const SampleOptions& options) -> std::unique_ptr<SampleSource> {
    const std::vector<ValueInfo> inputs = graph.inputs;
    ChunkPull pull;
    int64_t total = -1;
    {
      py::gil_scoped_acquire gil;
      State& s = *state;
      if (s.kind == Kind::kOneShotIterator || s.kind == Kind::kOneShotReader) {
        auto pass = std::make_shared<OneShotPass>(OneShotPass{state, prefix_ok});
        pull = [pass, inputs](Chunk* c) { return pass->Pull(inputs, c); };
      } else {
        auto pass = std::make_shared<Pass>();
        pass->state = state;
        if (s.kind == Kind::kCallable) pass->iter = Share(py::iter(s.data()));
        if (s.kind == Kind::kIterable) pass->iter = Share(py::iter(s.data));
        if (s.kind == Kind::kRewindReader) {
          s.data.attr("rewind")();
          pass->iter = Share(s.data);
        }
        if (s.kind == Kind::kList && !inputs.empty()) total = ListSamples(s, inputs);
        pull = [pass, inputs](Chunk* c) { return pass->Pull(inputs, c); };
      }
    }
    return std::make_unique<ChunkSamples>(graph, std::move(pull), options, state->what, total);
  };
}

}  // namespace ptq::python
