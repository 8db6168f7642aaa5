// ptq.Session: a model loaded once and run on dicts of numpy arrays, with the GIL released while it runs.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cli/python/py_arrays.h"
#include "cli/python/py_errors.h"
#include "cli/python/py_module.h"
#include "runtime/error.h"
#include "runtime/graph.h"
#include "runtime/session.h"
#include "runtime/threading.h"

namespace py = pybind11;

namespace ptq::python {
namespace {

// (name, dtype, shape) of a model input or output: dims as ints, symbolic dims as their names, unknown
// dims as None; shape None when the model declares none.
py::list Describe(const std::vector<ValueInfo>& values) {
  py::list out;
  for (const ValueInfo& v : values) {
    py::object shape = py::none();
    if (v.has_shape) {
      py::list dims;
      for (const Dim& d : v.shape) {
        if (d.value >= 0) dims.append(d.value);
        else if (!d.param.empty()) dims.append(d.param);
        else dims.append(py::none());
      }
      shape = py::tuple(dims);
    }
    out.append(py::make_tuple(v.name, DataTypeName(v.dtype), shape));
  }
  return out;
}

class PySession {
 public:
  PySession(const std::string& path, std::optional<int> threads, bool literal_qdq) {
    if (threads && *threads < 1) ThrowUsageError("threads must be at least 1, not ", *threads);
    SetNumThreads(threads.value_or(0));
    threads_ = NumThreads();
    SessionOptions options;
    options.literal_qdq = literal_qdq;
    py::gil_scoped_release release;
    graph_ = std::make_shared<const Graph>(LoadGraph(path));
    session_ = std::make_unique<Session>(graph_, options);
  }

  py::dict Run(const py::dict& feeds) {
    std::map<std::string, Tensor> inputs;
    for (const auto& [key, value] : feeds) {
      const std::string name = py::str(key).cast<std::string>();
      DataType want = DataType::kUndefined;
      for (const ValueInfo& v : graph_->inputs) {
        if (v.name == name) want = v.dtype;
      }
      inputs[name] = ArrayToTensor(value, want, StrCat("feed '", name, "'"));
    }
    std::vector<Tensor> outputs;
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mutex_);  // one run at a time per session
      if (NumThreads() != threads_) SetNumThreads(threads_);
      outputs = session_->Run(inputs);
    }
    py::dict out;
    for (size_t i = 0; i < outputs.size(); ++i) {
      const std::string& name = graph_->outputs[i].name;
      out[py::str(name)] = TensorToArray(outputs[i], StrCat("output '", name, "'"));
    }
    return out;
  }

  py::dict Bench(const py::dict& feeds, double seconds, int warmup) {
    for (int i = 0; i < warmup; ++i) Run(feeds);
    using Clock = std::chrono::steady_clock;
    std::vector<double> ms;
    const auto end = Clock::now() + std::chrono::duration<double>(seconds);
    while (ms.size() < 5 || Clock::now() < end) {
      const auto t0 = Clock::now();
      Run(feeds);
      ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
      CheckSignals();
    }
    std::sort(ms.begin(), ms.end());
    py::dict r;
    r["median_ms"] = ms[ms.size() / 2];
    r["min_ms"] = ms.front();
    r["runs"] = ms.size();
    r["threads"] = threads_;
    return r;
  }

  py::list Inputs() const { return Describe(graph_->inputs); }
  py::list Outputs() const { return Describe(graph_->outputs); }
  int threads() const { return threads_; }

 private:
  std::shared_ptr<const Graph> graph_;
  std::unique_ptr<Session> session_;
  std::mutex mutex_;
  int threads_ = 1;
};

}  // namespace

void DefineSession(py::module_& m) {
  py::class_<PySession>(m, "Session", R"(A model loaded once and run by ptq's runtime (float or integer ONNX graphs).

Session(model_path, threads=None, literal_qdq=False)
  threads: kernel threads (None: one per core). literal_qdq: run DequantizeLinear -> op ->
  QuantizeLinear groups node by node in float, as written, instead of fused on the integer kernels.
Raises ModelError for a model ptq cannot load or run (the message lists unsupported ops).)")
      .def(py::init<const std::string&, std::optional<int>, bool>(), py::arg("model_path"), py::arg("threads") = py::none(),
           py::arg("literal_qdq") = false)
      .def("run", &PySession::Run, py::arg("feeds"),
           R"(Runs the model on feeds {input name: array} and returns {output name: numpy array}.

Arrays are read without a copy when C-contiguous and of the input's dtype, converted within a kind
(float64 -> float32) otherwise; DataError for a missing or unknown input, a wrong shape or dtype.
The GIL is released while the model runs; one run at a time per session.)")
      .def("bench", &PySession::Bench, py::arg("feeds"), py::arg("seconds") = 1.0, py::arg("warmup") = 3,
           "Times run(feeds) for about `seconds` (at least 5 runs) after `warmup` runs: "
           "{'median_ms', 'min_ms', 'runs', 'threads'}.")
      .def_property_readonly("inputs", &PySession::Inputs,
                             "[(name, dtype, shape)]: shape a tuple of ints, symbolic dim names and None, or None.")
      .def_property_readonly("outputs", &PySession::Outputs, "[(name, dtype, shape)] of the model's outputs.")
      .def_property_readonly("threads", &PySession::threads, "The kernel threads the session runs with.");
}

}  // namespace ptq::python
