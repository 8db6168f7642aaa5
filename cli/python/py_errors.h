// Python's view of ptq's errors (ptq.Error and its ConfigError, ModelError, DataError) and of Ctrl-C.
#pragma once

#include <pybind11/pybind11.h>

namespace ptq::python {

// Defines the exception classes in `m` and translates ptq::Error into them: a usage or config error ->
// ConfigError, bad data -> DataError, a bad model -> ModelError, an internal error -> Error; the
// message is the one the CLI prints after "ptq: error: ".
void RegisterErrors(pybind11::module_& m);

// Runs Python's signal handlers when a signal arrived (Ctrl-C): their exception (KeyboardInterrupt) is
// thrown as pybind11::error_already_set and unwinds the C++ work, which leaves no partial output.
// REQUIRES: the GIL is held.
void CheckSignals();

// Raises ptq.DataError (as a C++ exception) with `message`. REQUIRES: the GIL is held or not; any thread.
[[noreturn]] void ThrowData(const std::string& message);

}  // namespace ptq::python
