// Samples from Python for calibration and validation: any iterable of {input name: array} dicts, a
// callable returning such an iterator, or an object with ONNX Runtime's get_next() reader protocol.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <string>

#include "calibrate/sample_source.h"

namespace ptq::python {

// How many bytes of a one-shot iterator's batches are kept for later passes over it, by default.
inline constexpr int64_t kOneShotBufferBytes = int64_t{1} << 30;

// Each yielded dict is a batch: its arrays' first axis counts samples, as the rows of an .npy file do
// (ChunkSamples re-batches them to calibration.batch_size). Kinds of data:
//  - a list or tuple of dicts (or one dict), any iterable whose iter() gives a new iterator each time,
//    a callable returning a new iterator, or a reader whose get_next() gives dicts and None at the end
//    and that has rewind(): each pass reads it again;
//  - an iterator or generator, or a reader without rewind(): one-shot. Its first pass keeps its batches
//    (up to `buffer_bytes`; the arrays themselves, no copy) for later passes (validation,
//    smoothquant, bias correction, calibration.method auto, fallback). A later pass that needs batches
//    beyond what was kept is a DataError asking for re-iterable data, unless it may end early
//    (`prefix_ok`: validation on the calibration data, which then runs on the kept batches).
class PyData {
 public:
  // `what` names the data in errors ("calibration_data"). REQUIRES: the GIL is held.
  PyData(pybind11::object data, std::string what, int64_t buffer_bytes = kOneShotBufferBytes);

  // Passes over the data; they take the GIL to read it, so they run with the GIL released.
  SampleSourceFactory Factory(bool prefix_ok) const;
  const std::string& what() const;

  struct State;

 private:
  std::shared_ptr<State> state_;
};

}  // namespace ptq::python
