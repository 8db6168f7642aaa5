// The exception classes of the module and the translation of ptq::Error into them.
#include "cli/python/py_errors.h"

#include <string>

#include "runtime/error.h"

namespace py = pybind11;

namespace ptq::python {
namespace {

// Set once when the module is imported; never freed (the module lives as long as the interpreter).
PyObject* g_error = nullptr;
PyObject* g_config_error = nullptr;
PyObject* g_model_error = nullptr;
PyObject* g_data_error = nullptr;

PyObject* NewClass(py::module_& m, const char* name, PyObject* base, const char* doc) {
  const std::string qualified = std::string("ptq.") + name;
  PyObject* cls = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, base, nullptr);
  if (!cls) throw py::error_already_set();
  m.add_object(name, py::reinterpret_borrow<py::object>(cls));
  return cls;
}

}  // namespace

void RegisterErrors(py::module_& m) {
  g_error = NewClass(m, "Error", PyExc_Exception, "Base class of the errors ptq raises; str(e) is the CLI's message.");
  g_config_error = NewClass(m, "ConfigError", g_error,
                            "A bad config (unknown key, wrong type, missing file path) or argument: the CLI's exit code 1.");
  g_model_error = NewClass(m, "ModelError", g_error,
                           "A bad or unsupported model (truncated file, unsupported op, invalid graph): exit code 2.");
  g_data_error = NewClass(m, "DataError", g_error,
                          "Bad data (missing input, wrong dtype or shape, unreadable file, labels): exit code 2.");
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      PyObject* cls = g_error;
      if (e.kind() == ErrorKind::kUsage) cls = g_config_error;
      if (e.kind() == ErrorKind::kInput) cls = e.subject() == InputSubject::kData ? g_data_error : g_model_error;
      PyErr_SetString(cls, e.what());
    }
  });
}

void CheckSignals() {
  if (PyErr_CheckSignals() != 0) throw py::error_already_set();
}

void ThrowData(const std::string& message) { throw Error(ErrorKind::kInput, message, InputSubject::kData); }

}  // namespace ptq::python
