// ArrayToTensor and TensorToArray: dtype mapping, the zero-copy cases and the conversions.
#include "cli/python/py_arrays.h"

#include <memory>

#include "cli/python/py_errors.h"
#include "runtime/error.h"

namespace py = pybind11;

namespace ptq::python {
namespace {

const char* NumpyCode(DataType t) {
  switch (t) {
    case DataType::kFloat: return "float32";
    case DataType::kDouble: return "float64";
    case DataType::kFloat16: return "float16";
    case DataType::kInt8: return "int8";
    case DataType::kUint8: return "uint8";
    case DataType::kInt16: return "int16";
    case DataType::kUint16: return "uint16";
    case DataType::kInt32: return "int32";
    case DataType::kUint32: return "uint32";
    case DataType::kInt64: return "int64";
    case DataType::kUint64: return "uint64";
    case DataType::kBool: return "bool";
    default: return nullptr;
  }
}

// numpy dtypes are equal here when of one kind and size in native byte order ('l' and 'q' are both int64).
bool SameDtype(const py::dtype& a, const py::dtype& b) {
  return a.kind() == b.kind() && a.itemsize() == b.itemsize() && a.attr("isnative").cast<bool>() &&
         b.attr("isnative").cast<bool>();
}

DataType FromNumpy(const py::dtype& d) {
  for (DataType t : {DataType::kFloat, DataType::kDouble, DataType::kFloat16, DataType::kInt8, DataType::kUint8,
                     DataType::kInt16, DataType::kUint16, DataType::kInt32, DataType::kUint32, DataType::kInt64,
                     DataType::kUint64, DataType::kBool}) {
    if (SameDtype(d, py::dtype(NumpyCode(t)))) return t;
  }
  return DataType::kUndefined;
}

// numpy's functions, looked up once (REQUIRES: GIL; the module lives as long as the interpreter).
struct Numpy {
  py::object asarray, ascontiguousarray, can_cast;
  static const Numpy& Get() {
    static const Numpy* np = [] {
      const py::module_ m = py::module_::import("numpy");
      return new Numpy{m.attr("asarray"), m.attr("ascontiguousarray"), m.attr("can_cast")};
    }();
    return *np;
  }
};

bool Contiguous(const py::array& a) {
  const int flags = py::detail::array_proxy(a.ptr())->flags;
  return (flags & py::detail::npy_api::NPY_ARRAY_C_CONTIGUOUS_) && (flags & py::detail::npy_api::NPY_ARRAY_ALIGNED_);
}

}  // namespace

py::dtype NumpyDtype(DataType t, const std::string& what) {
  const char* code = NumpyCode(t);
  if (!code) ThrowData(StrCat(what, ": ", DataTypeName(t), " has no numpy equivalent ptq can exchange"));
  return py::dtype(code);
}

Tensor ArrayToTensor(const py::handle& value, DataType want, const std::string& what) {
  const Numpy& np = Numpy::Get();
  py::array a = py::isinstance<py::array>(value) ? py::reinterpret_borrow<py::array>(value) : py::array(np.asarray(value));
  if (want == DataType::kUndefined) want = FromNumpy(a.dtype());
  const py::dtype dt = NumpyDtype(want, what);
  if (!SameDtype(a.dtype(), dt)) {
    if (!np.can_cast(a.dtype(), dt, "same_kind").cast<bool>()) {
      ThrowData(StrCat(what, ": expects ", DataTypeName(want), ", got an array of ", py::str(a.dtype()).cast<std::string>(),
                       " (ptq converts within a kind only, e.g. float64 to float32)"));
    }
    a = a.attr("astype")(dt, py::arg("order") = "C");
  }
  if (!Contiguous(a)) a = np.ascontiguousarray(a);
  Shape shape(a.shape(), a.shape() + a.ndim());
  auto* keep = new py::object(a);  // released with the GIL taken, on whichever thread drops the tensor
  std::shared_ptr<void> buffer(const_cast<void*>(a.data()), [keep](void*) {
    py::gil_scoped_acquire gil;
    delete keep;
  });
  return Tensor::FromBuffer(want, std::move(shape), std::move(buffer));
}

py::array TensorToArray(const Tensor& t, const std::string& what) {
  const py::dtype dt = NumpyDtype(t.dtype(), what);
  auto* keep = new std::shared_ptr<void>(t.buffer());
  const py::capsule owner(keep, [](void* p) { delete static_cast<std::shared_ptr<void>*>(p); });
  std::vector<py::ssize_t> shape(t.shape().begin(), t.shape().end());
  return py::array(dt, shape, t.buffer().get(), owner);
}

}  // namespace ptq::python
