// The Python module `ptq`: ptq's quantize job, its stages and its runtime, from Python.
#include <pybind11/pybind11.h>

#include "cli/python/py_errors.h"
#include "cli/python/py_module.h"

PYBIND11_MODULE(ptq, m) {
  m.doc() = R"(ptq: offline post-training quantization for ONNX models (the C++ tool's Python module).

quantize(config, calibration_data=None, ...) runs the whole job, as `ptq quantize`; calibrate,
rewrite and load_table run its stages; compare reports on any float/int8 pair and inspect on one
model; Session runs a float or integer model. Errors are ptq.Error
subclasses: ConfigError, ModelError, DataError.)";
  m.attr("__version__") = PTQ_VERSION;
  ptq::python::RegisterErrors(m);
  ptq::python::DefineSession(m);
  ptq::python::DefineJobs(m);
  ptq::python::DefineCompare(m);
}
