// The parts of the Python module `ptq`, each defined by its own file; module.cc puts them together.
#pragma once

#include <pybind11/pybind11.h>

namespace ptq::python {

void DefineSession(pybind11::module_& m);  // py_session.cc: ptq.Session
void DefineJobs(pybind11::module_& m);     // py_jobs.cc: quantize, calibrate, rewrite, load_table
void DefineCompare(pybind11::module_& m);  // py_compare.cc: compare, inspect

}  // namespace ptq::python
