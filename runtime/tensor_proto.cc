// TensorProto decoding and encoding, with size checks before allocation and safe external data.
#include "runtime/tensor_proto.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include "runtime/file_util.h"
#include "runtime/mapped_file.h"
#include "runtime/model_io.h"

namespace ptq {

namespace fs = std::filesystem;

std::string ResolveExternalDataPath(const std::string& base_dir, const std::string& location, const std::string& what) {
  if (base_dir.empty()) ThrowInputError(what, ": external data is not allowed here (location '", location, "')");
  const fs::path loc(location);
  if (location.empty()) ThrowInputError(what, ": external data has no location");
  if (location.find('\0') != std::string::npos) ThrowInputError(what, ": external data location contains a NUL byte");
  if (loc.is_absolute() || loc.has_root_name() || loc.has_root_directory()) {
    ThrowInputError(what, ": external data location '", location, "' is an absolute path; it must be a relative path inside the model's folder");
  }
  for (const fs::path& part : loc) {
    if (part == "..") ThrowInputError(what, ": external data location '", location, "' has a '..' component (it must stay inside the model's folder)");
  }
  std::error_code ec;
  const fs::path base = fs::canonical(fs::path(base_dir), ec);
  if (ec) ThrowInputError(what, ": cannot resolve the model's folder '", base_dir, "' for external data '", location, "': ", ec.message());
  const fs::path full = fs::weakly_canonical(base / loc, ec);
  if (ec) ThrowInputError(what, ": cannot resolve external data location '", location, "': ", ec.message());
  // A symbolic link (the file itself or a folder on the way) may still lead out.
  const fs::path rel = full.lexically_relative(base);
  if (rel.empty() || rel == "." || *rel.begin() == "..") {
    ThrowInputError(what, ": external data location '", location, "' resolves to ", full.string(),
                    ", outside the model's folder ", base.string());
  }
  return full.string();
}

int64_t SerializedBytes(DataType t, int64_t n, const std::string& what) {
  if (t == DataType::kInt4 || t == DataType::kUint4) return n / 2 + n % 2;
  const int64_t es = static_cast<int64_t>(ElementSize(t));
  if (es > 0 && n > std::numeric_limits<int64_t>::max() / es) {
    ThrowInputError(what, ": ", n, " elements of ", DataTypeName(t), " are more bytes than int64 can count");
  }
  return n * es;
}

namespace {

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

// Allocates the decoded tensor once its data has been checked: the Tensor constructor checks
// MaxTensorBytes(), and the caller's budget (when given) is charged first.
Tensor Allocate(DataType dtype, const Shape& shape, int64_t* budget, const std::string& what) {
  if (budget) {
    const int64_t es = static_cast<int64_t>(ElementSize(dtype));
    const int64_t n = ShapeSize(shape);
    const int64_t bytes = es > 0 && n > std::numeric_limits<int64_t>::max() / es ? std::numeric_limits<int64_t>::max() : n * es;
    if (bytes > *budget) {
      ThrowInputError(what, ": its ", bytes, " bytes exceed what is left (", std::max<int64_t>(*budget, 0),
                      " bytes) of the model's memory limit of ", MaxModelBytes(), " bytes");
    }
    *budget -= bytes;
  }
  return Tensor(dtype, shape);
}

// A non-negative decimal integer of at most 18 digits (external data offset and length).
int64_t ParseExternalNumber(const std::string& key, const std::string& value, const std::string& what) {
  if (value.empty() || value.size() > 18 || value.find_first_not_of("0123456789") != std::string::npos) {
    ThrowInputError(what, ": external data key '", key, "' must be a non-negative integer, got '", value, "'");
  }
  return std::stoll(value);
}

Tensor ReadExternal(const onnx::TensorProto& p, DataType dtype, const Shape& shape, const std::string& base_dir,
                    const std::string& what, int64_t* budget, ExternalRead read) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const auto& kv : p.external_data()) {
    if (kv.key() == "location") location = kv.value();
    else if (kv.key() == "offset") offset = ParseExternalNumber(kv.key(), kv.value(), what);
    else if (kv.key() == "length") length = ParseExternalNumber(kv.key(), kv.value(), what);
  }
  const std::string path = ResolveExternalDataPath(base_dir, location, what);
  const int64_t n = ShapeSize(shape);
  const int64_t need = SerializedBytes(dtype, n, what);
  if (length >= 0 && length != need) {
    ThrowInputError(what, ": external data length ", length, " does not match shape ", ShapeToString(shape),
                    " of ", DataTypeName(dtype), " (", need, " bytes)");
  }
  const int64_t file_size = FileSize(path);
  if (offset > file_size || need > file_size - offset) {
    ThrowInputError(what, ": external data file '", location, "' has ", file_size, " bytes; need ", need,
                    " at offset ", offset);
  }
  const bool packed = dtype == DataType::kInt4 || dtype == DataType::kUint4;
  // Mapped, not copied (and not charged to the budget: the bytes are the file's, in the page cache),
  // where the elements are aligned and the vector kernels' over-read stays inside the file's pages.
  if (read == ExternalRead::kMap && !packed && need > 0 && offset % static_cast<int64_t>(ElementSize(dtype)) == 0 &&
      CanMapWithOverread(offset, need, file_size)) {
    return Tensor::FromBuffer(dtype, shape, MapFileRange(path, offset, need));
  }
  Tensor t = Allocate(dtype, shape, budget, what);
  std::string packed_bytes(packed ? static_cast<size_t>(need) : 0, '\0');
  char* dst = packed ? packed_bytes.data() : static_cast<char*>(t.raw());
  std::ifstream in(path, std::ios::binary);
  in.seekg(offset);
  in.read(dst, need);
  if (!in || in.gcount() != need) ThrowInputError(what, ": short read from external data file '", location, "'");
  if (packed) FillFromBytes(t, packed_bytes.data());
  return t;
}

template <class Field>
void CheckCount(const Field& field, int64_t expected, const std::string& what, const char* field_name) {
  if (static_cast<int64_t>(field.size()) != expected) {
    ThrowInputError(what, ": ", field_name, " has ", field.size(), " values, the shape needs ", expected);
  }
}

Tensor Decode(const onnx::TensorProto& p, const std::string& base_dir, const std::string& what, int64_t* budget,
              ExternalRead read) {
  const auto dtype = static_cast<DataType>(p.data_type());
  if (!IsSupportedDataType(dtype)) ThrowInputError(what, ": element type ", DataTypeName(dtype), " is not supported");
  Shape shape(p.dims().begin(), p.dims().end());
  const int64_t n = ShapeSize(shape);
  if (p.has_data_location() && p.data_location() == onnx::TensorProto::EXTERNAL) {
    return ReadExternal(p, dtype, shape, base_dir, what, budget, read);
  }
  if (p.has_raw_data()) {
    const int64_t need = SerializedBytes(dtype, n, what);
    if (static_cast<int64_t>(p.raw_data().size()) != need) {
      ThrowInputError(what, ": raw_data has ", p.raw_data().size(), " bytes, shape ", ShapeToString(shape), " of ",
                      DataTypeName(dtype), " needs ", need);
    }
    Tensor t = Allocate(dtype, shape, budget, what);
    FillFromBytes(t, p.raw_data().data());
    return t;
  }
  switch (dtype) {
    case DataType::kFloat: {
      CheckCount(p.float_data(), n, what, "float_data");
      Tensor t = Allocate(dtype, shape, budget, what);
      std::copy(p.float_data().begin(), p.float_data().end(), t.data<float>());
      return t;
    }
    case DataType::kDouble: {
      CheckCount(p.double_data(), n, what, "double_data");
      Tensor t = Allocate(dtype, shape, budget, what);
      std::copy(p.double_data().begin(), p.double_data().end(), t.data<double>());
      return t;
    }
    case DataType::kInt64: {
      CheckCount(p.int64_data(), n, what, "int64_data");
      Tensor t = Allocate(dtype, shape, budget, what);
      std::copy(p.int64_data().begin(), p.int64_data().end(), t.data<int64_t>());
      return t;
    }
    case DataType::kUint32:
    case DataType::kUint64: {
      CheckCount(p.uint64_data(), n, what, "uint64_data");
      Tensor t = Allocate(dtype, shape, budget, what);
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
      const int64_t packed = SerializedBytes(dtype, n, what);  // (n + 1) / 2 without overflowing
      CheckCount(p.int32_data(), packed, what, "int32_data");
      std::string bytes(static_cast<size_t>(packed), '\0');
      for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(p.int32_data(static_cast<int>(i)) & 0xff);
      Tensor t = Allocate(dtype, shape, budget, what);
      FillFromBytes(t, bytes.data());
      return t;
    }
    default: {
      // int32, int16, int8, uint16, uint8, bool, float16, bfloat16: one int32_data entry each.
      CheckCount(p.int32_data(), n, what, "int32_data");
      Tensor t = Allocate(dtype, shape, budget, what);
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

}  // namespace

Tensor TensorFromProto(const onnx::TensorProto& p, const std::string& base_dir, const std::string& what, int64_t* budget,
                       ExternalRead read) {
  try {
    return Decode(p, base_dir, what, budget, read);
  } catch (const Error& e) {  // errors of ShapeSize and the Tensor constructor do not name the tensor yet
    const std::string message = e.what();
    if (message.compare(0, what.size(), what) == 0) throw;
    throw Error(e.kind(), what + ": " + message);
  }
}

void ReleaseTensorData(onnx::TensorProto* p) {
  std::string().swap(*p->mutable_raw_data());  // swapped out: clear() would keep the capacity
  p->clear_raw_data();
  google::protobuf::RepeatedField<float>().Swap(p->mutable_float_data());
  google::protobuf::RepeatedField<double>().Swap(p->mutable_double_data());
  google::protobuf::RepeatedField<int32_t>().Swap(p->mutable_int32_data());
  google::protobuf::RepeatedField<int64_t>().Swap(p->mutable_int64_data());
  google::protobuf::RepeatedField<uint64_t>().Swap(p->mutable_uint64_data());
}

void SetTensorProtoHeader(const Tensor& t, const std::string& name, onnx::TensorProto* p) {
  p->Clear();
  p->set_name(name);
  p->set_data_type(static_cast<int32_t>(t.dtype()));
  for (int64_t d : t.shape()) p->add_dims(d);
}

void TensorToProto(const Tensor& t, const std::string& name, onnx::TensorProto* p) {
  SetTensorProtoHeader(t, name, p);
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
  const int64_t need = EstimateParsedBytes(bytes, onnx::TensorProto::descriptor());
  if (need < 0) ThrowInputError(path, ": not a valid TensorProto file");
  if (need > MaxTensorBytes() + (int64_t{1} << 20)) {
    ThrowInputError(path, ": the TensorProto would need about ", need, " bytes of memory once parsed, more than the memory limit of ",
                    MaxTensorBytes(), " bytes");
  }
  onnx::TensorProto proto;
  if (!proto.ParseFromString(bytes)) ThrowInputError(path, ": not a valid TensorProto file");
  if (name) *name = proto.name();
  const std::string dir = fs::path(path).parent_path().string();
  return TensorFromProto(proto, dir.empty() ? "." : dir, path);
}

}  // namespace ptq
