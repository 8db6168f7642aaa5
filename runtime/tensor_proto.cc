// TensorProto decoding and encoding, with size checks before allocation and safe external data.
#include "runtime/tensor_proto.h"

#include <onnx/onnx_pb.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "runtime/file_util.h"

namespace ptq {

namespace {

namespace fs = std::filesystem;

// Bytes of the serialized form: int4/uint4 pack two elements per byte.
int64_t SerializedBytes(DataType t, int64_t n) {
  if (t == DataType::kInt4 || t == DataType::kUint4) return (n + 1) / 2;
  return n * static_cast<int64_t>(ElementSize(t));
}

// Copies little-endian serialized bytes into the tensor, unpacking 4-bit types.
void FillFromBytes(Tensor& t, const char* bytes) {
  if (t.dtype() == DataType::kInt4 || t.dtype() == DataType::kUint4) {
    const bool is_signed = t.dtype() == DataType::kInt4;
    auto* out = static_cast<uint8_t*>(t.raw());
    for (int64_t i = 0; i < t.size(); ++i) {
      uint8_t nib = static_cast<uint8_t>(bytes[i / 2]);
      nib = (i % 2 == 0) ? (nib & 0x0f) : (nib >> 4);
      out[i] = is_signed && (nib & 0x08) ? static_cast<uint8_t>(nib | 0xf0) : nib;
    }
    return;
  }
  std::memcpy(t.raw(), bytes, t.nbytes());
}

std::string ResolveExternalPath(const std::string& base_dir, const std::string& location, const std::string& what) {
  if (base_dir.empty()) ThrowInputError(what, ": external data is not allowed here (location '", location, "')");
  const fs::path loc(location);
  if (location.empty() || loc.is_absolute()) {
    ThrowInputError(what, ": external data location '", location, "' must be a relative path inside the model's folder");
  }
  for (const fs::path& part : loc) {
    if (part == "..") ThrowInputError(what, ": external data location '", location, "' leaves the model's folder");
  }
  std::error_code ec;
  const fs::path base = fs::weakly_canonical(fs::path(base_dir), ec);
  const fs::path full = fs::weakly_canonical(fs::path(base_dir) / loc, ec);
  if (ec) ThrowInputError(what, ": cannot resolve external data location '", location, "'");
  // A symbolic link may still lead out: compare canonical paths component by component.
  auto b = base.begin();
  auto f = full.begin();
  for (; b != base.end(); ++b, ++f) {
    if (f == full.end() || *b != *f) {
      ThrowInputError(what, ": external data location '", location, "' resolves outside the model's folder");
    }
  }
  return full.string();
}

Tensor ReadExternal(const onnx::TensorProto& p, DataType dtype, const Shape& shape, const std::string& base_dir,
                    const std::string& what) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const auto& kv : p.external_data()) {
    try {
      if (kv.key() == "location") location = kv.value();
      else if (kv.key() == "offset") offset = std::stoll(kv.value());
      else if (kv.key() == "length") length = std::stoll(kv.value());
    } catch (const std::exception&) {
      ThrowInputError(what, ": external data key '", kv.key(), "' has a non-numeric value '", kv.value(), "'");
    }
  }
  const std::string path = ResolveExternalPath(base_dir, location, what);
  const int64_t n = ShapeSize(shape);
  const int64_t need = SerializedBytes(dtype, n);
  if (length >= 0 && length != need) {
    ThrowInputError(what, ": external data length ", length, " does not match shape ", ShapeToString(shape),
                    " of ", DataTypeName(dtype), " (", need, " bytes)");
  }
  const int64_t file_size = FileSize(path);
  if (offset < 0 || offset > file_size || need > file_size - offset) {
    ThrowInputError(what, ": external data file '", location, "' has ", file_size, " bytes; need ", need,
                    " at offset ", offset);
  }
  Tensor t(dtype, shape);
  std::string bytes(static_cast<size_t>(need), '\0');
  std::ifstream in(path, std::ios::binary);
  in.seekg(offset);
  in.read(bytes.data(), need);
  if (in.gcount() != need) ThrowInputError(what, ": short read from external data file '", location, "'");
  FillFromBytes(t, bytes.data());
  return t;
}

template <class Field>
void CheckCount(const Field& field, int64_t expected, const std::string& what, const char* field_name) {
  if (static_cast<int64_t>(field.size()) != expected) {
    ThrowInputError(what, ": ", field_name, " has ", field.size(), " values, the shape needs ", expected);
  }
}

}  // namespace

Tensor TensorFromProto(const onnx::TensorProto& p, const std::string& base_dir, const std::string& what) {
  const auto dtype = static_cast<DataType>(p.data_type());
  if (!IsSupportedDataType(dtype)) ThrowInputError(what, ": element type ", DataTypeName(dtype), " is not supported");
  Shape shape(p.dims().begin(), p.dims().end());
  const int64_t n = ShapeSize(shape);
  if (p.has_data_location() && p.data_location() == onnx::TensorProto::EXTERNAL) {
    return ReadExternal(p, dtype, shape, base_dir, what);
  }
  if (p.has_raw_data()) {
    const int64_t need = SerializedBytes(dtype, n);
    if (static_cast<int64_t>(p.raw_data().size()) != need) {
      ThrowInputError(what, ": raw_data has ", p.raw_data().size(), " bytes, shape ", ShapeToString(shape), " of ",
                      DataTypeName(dtype), " needs ", need);
    }
    Tensor t(dtype, shape);
    FillFromBytes(t, p.raw_data().data());
    return t;
  }
  switch (dtype) {
    case DataType::kFloat: {
      CheckCount(p.float_data(), n, what, "float_data");
      Tensor t(dtype, shape);
      std::copy(p.float_data().begin(), p.float_data().end(), t.data<float>());
      return t;
    }
    case DataType::kDouble: {
      CheckCount(p.double_data(), n, what, "double_data");
      Tensor t(dtype, shape);
      std::copy(p.double_data().begin(), p.double_data().end(), t.data<double>());
      return t;
    }
    case DataType::kInt64: {
      CheckCount(p.int64_data(), n, what, "int64_data");
      Tensor t(dtype, shape);
      std::copy(p.int64_data().begin(), p.int64_data().end(), t.data<int64_t>());
      return t;
    }
    case DataType::kUint32:
    case DataType::kUint64: {
      CheckCount(p.uint64_data(), n, what, "uint64_data");
      Tensor t(dtype, shape);
      for (int64_t i = 0; i < n; ++i) {
        const uint64_t v = p.uint64_data(static_cast<int>(i));
        if (dtype == DataType::kUint32) t.data<uint32_t>()[i] = static_cast<uint32_t>(v);
        else t.data<uint64_t>()[i] = v;
      }
      return t;
    }
    case DataType::kInt4:
    case DataType::kUint4: {
      // Two 4-bit values per int32_data entry (low nibble first).
      CheckCount(p.int32_data(), (n + 1) / 2, what, "int32_data");
      std::string bytes(static_cast<size_t>((n + 1) / 2), '\0');
      for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(p.int32_data(static_cast<int>(i)) & 0xff);
      Tensor t(dtype, shape);
      FillFromBytes(t, bytes.data());
      return t;
    }
    default: {
      // int32, int16, int8, uint16, uint8, bool, float16, bfloat16: one int32_data entry each.
      CheckCount(p.int32_data(), n, what, "int32_data");
      Tensor t(dtype, shape);
      const size_t es = ElementSize(dtype);
      auto* out = static_cast<char*>(t.raw());
      for (int64_t i = 0; i < n; ++i) {
        const int32_t v = p.int32_data(static_cast<int>(i));
        std::memcpy(out + i * static_cast<int64_t>(es), &v, es);  // little-endian: low bytes first
      }
      return t;
    }
  }
}

void TensorToProto(const Tensor& t, const std::string& name, onnx::TensorProto* p) {
  p->Clear();
  p->set_name(name);
  p->set_data_type(static_cast<int32_t>(t.dtype()));
  for (int64_t d : t.shape()) p->add_dims(d);
  if (t.dtype() == DataType::kInt4 || t.dtype() == DataType::kUint4) {
    std::string bytes(static_cast<size_t>((t.size() + 1) / 2), '\0');
    const auto* in = static_cast<const uint8_t*>(t.raw());
    for (int64_t i = 0; i < t.size(); ++i) {
      const uint8_t nib = in[i] & 0x0f;
      bytes[static_cast<size_t>(i / 2)] = static_cast<char>(static_cast<uint8_t>(bytes[static_cast<size_t>(i / 2)]) |
                                                            (i % 2 == 0 ? nib : static_cast<uint8_t>(nib << 4)));
    }
    p->set_raw_data(bytes);
    return;
  }
  p->set_raw_data(std::string(static_cast<const char*>(t.raw()), t.nbytes()));
}

Tensor ReadTensorProtoFile(const std::string& path, std::string* name) {
  const std::string bytes = ReadFileToString(path, int64_t{2} << 30);
  onnx::TensorProto proto;
  if (!proto.ParseFromString(bytes)) ThrowInputError(path, ": not a valid TensorProto file");
  if (name) *name = proto.name();
  const fs::path dir = fs::path(path).parent_path();
  return TensorFromProto(proto, dir.string(), path);
}

}  // namespace ptq
