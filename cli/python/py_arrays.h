// numpy arrays <-> ptq tensors: read without a copy when C-contiguous, aligned and of the wanted dtype.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>

#include "runtime/tensor.h"

namespace ptq::python {

// The numpy dtype of a ptq element type; throws a data error naming `what` for types numpy has no
// equivalent of (bfloat16, strings, 4-bit).
pybind11::dtype NumpyDtype(DataType t, const std::string& what);

// `value` (a numpy array or anything numpy.asarray takes: lists, scalars, torch CPU tensors) as a tensor
// of `want` (kUndefined: numpy's own dtype). The tensor shares the array's memory when it is
// C-contiguous, aligned and of that dtype (the array is kept alive until the tensor is gone; ptq never
// writes to its inputs); otherwise a converted copy, for conversions numpy calls "same_kind" (float64
// to float32, int32 to int64), and a data error naming `what` for others (float to int). REQUIRES: GIL.
Tensor ArrayToTensor(const pybind11::handle& value, DataType want, const std::string& what);

// A numpy array viewing the tensor's memory (kept alive by the array). REQUIRES: GIL.
pybind11::array TensorToArray(const Tensor& t, const std::string& what);

}  // namespace ptq::python
