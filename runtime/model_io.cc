// .onnx file reading and atomic writing.
#include "runtime/model_io.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/util/field_mask_util.h>
#include <google/protobuf/wire_format_lite.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <onnx/onnx_pb.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <exception>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>

#include "runtime/error.h"
#include "runtime/file_util.h"
#include "runtime/tensor.h"

namespace ptq {

namespace {

constexpr int64_t kProtobufLimit = kProtobufLimitBytes;
constexpr int kRecursionLimit = 100;

// Costs of parsed protobuf objects (64-bit libprotobuf): a message's fixed part and repeated-field
// slot, a std::string, and a repeated scalar element.
constexpr int64_t kMessageCost = 64;
constexpr int64_t kStringCost = 40;

// Parsed bytes per wire byte of a packed repeated scalar field: fixed-width values take as many bytes
// parsed as on the wire; varints at least one wire byte per 4- or 8-byte element.
int64_t PackedCostPerWireByte(const google::protobuf::FieldDescriptor* f) {
  using google::protobuf::FieldDescriptor;
  switch (f->type()) {
    case FieldDescriptor::TYPE_FIXED32:
    case FieldDescriptor::TYPE_SFIXED32:
    case FieldDescriptor::TYPE_FLOAT:
    case FieldDescriptor::TYPE_FIXED64:
    case FieldDescriptor::TYPE_SFIXED64:
    case FieldDescriptor::TYPE_DOUBLE:
    case FieldDescriptor::TYPE_BOOL:
      return 1;
    case FieldDescriptor::TYPE_INT32:
    case FieldDescriptor::TYPE_UINT32:
    case FieldDescriptor::TYPE_SINT32:
    case FieldDescriptor::TYPE_ENUM:
      return 4;
    default:
      return 8;
  }
}

// The estimate of one message up to its end (the stream's limit or an end of input), or -1 when the bytes
// are malformed in a way the estimate cannot follow: then the parser refuses them too, and the caller
// reports them as invalid (failing closed: a malformed prefix never shortens the estimate).
int64_t EstimateMessage(google::protobuf::io::CodedInputStream* in, const google::protobuf::Descriptor* d, int depth) {
  using google::protobuf::FieldDescriptor;
  using google::protobuf::internal::WireFormatLite;
  int64_t total = kMessageCost + 8 * d->field_count();
  if (depth > kRecursionLimit) return -1;  // the parser refuses it
  while (const uint32_t tag = in->ReadTag()) {
    const FieldDescriptor* f = d->FindFieldByNumber(static_cast<int>(WireFormatLite::GetTagFieldNumber(tag)));
    switch (WireFormatLite::GetTagWireType(tag)) {
      case WireFormatLite::WIRETYPE_VARINT: {
        uint64_t v;
        if (!in->ReadVarint64(&v)) return -1;
        total += 8;
        break;
      }
      case WireFormatLite::WIRETYPE_FIXED64:
        if (!in->Skip(8)) return -1;
        total += 8;
        break;
      case WireFormatLite::WIRETYPE_FIXED32:
        if (!in->Skip(4)) return -1;
        total += 8;
        break;
      case WireFormatLite::WIRETYPE_LENGTH_DELIMITED: {
        uint32_t len;
        if (!in->ReadVarint32(&len) || len > static_cast<uint32_t>(kProtobufLimit)) return -1;
        if (f && f->type() == FieldDescriptor::TYPE_MESSAGE) {
          const auto limit = in->PushLimit(static_cast<int>(len));
          const int64_t sub = EstimateMessage(in, f->message_type(), depth + 1);
          if (sub < 0 || !in->ConsumedEntireMessage()) return -1;
          in->PopLimit(limit);
          total += 8 + sub;
        } else {
          // A string or bytes value (unknown fields are kept as bytes), or a packed repeated scalar.
          const bool packed = f && f->is_repeated() && f->type() != FieldDescriptor::TYPE_STRING &&
                              f->type() != FieldDescriptor::TYPE_BYTES;
          total += packed ? PackedCostPerWireByte(f) * static_cast<int64_t>(len) : kStringCost + len;
          if (!in->Skip(static_cast<int>(len))) return -1;
        }
        break;
      }
      case WireFormatLite::WIRETYPE_START_GROUP: {
        // Groups are not in onnx.proto, but the parser keeps them as unknown fields, one 16-byte entry
        // per field inside: charged 16 bytes per wire byte.
        const int start = in->CurrentPosition();
        if (!WireFormatLite::SkipField(in, tag)) return -1;
        total += kStringCost + 16 * static_cast<int64_t>(in->CurrentPosition() - start);
        break;
      }
      default:
        return -1;  // an end-group tag outside a group or an invalid wire type: the parser refuses it
    }
  }
  return in->ConsumedEntireMessage() ? total : -1;
}

// The parsed-size estimate and the parse of one ModelProto from streams made by `open` (called twice:
// each pass reads the bytes from the start). `size` is the number of bytes.
void ParseModelStream(const std::function<std::unique_ptr<google::protobuf::io::ZeroCopyInputStream>()>& open,
                      int64_t size, const std::string& source, onnx::ModelProto* model) {
  if (size > kProtobufLimit) {
    ThrowInputError(source, ": ", size, " bytes is over protobuf's 2 GiB limit (keep weights in external data)");
  }
  int64_t need;
  {
    const auto raw = open();
    google::protobuf::io::CodedInputStream in(raw.get());
    in.SetTotalBytesLimit(static_cast<int>(kProtobufLimit));
    need = EstimateMessage(&in, onnx::ModelProto::descriptor(), 0);
  }
  if (need < 0) {
    ThrowInputError(source, ": not a valid ONNX model (the protobuf could not be parsed; is the file truncated?)");
  }
  if (need > MaxModelBytes()) {
    ThrowInputError(source, ": the model would need about ", need, " bytes of memory once parsed, more than the memory limit of ",
                    MaxModelBytes(), " bytes");
  }
  const auto raw = open();
  google::protobuf::io::CodedInputStream coded(raw.get());
  coded.SetTotalBytesLimit(static_cast<int>(kProtobufLimit));
  coded.SetRecursionLimit(kRecursionLimit);
  if (!model->ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage()) {
    ThrowInputError(source, ": not a valid ONNX model (the protobuf could not be parsed; is the file truncated?)");
  }
  if (!model->has_graph()) ThrowInputError(source, ": the ONNX model has no graph (is the file truncated?)");
}

}  // namespace

int64_t EstimateParsedBytes(const std::string& bytes, const google::protobuf::Descriptor* descriptor) {
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()), static_cast<int>(bytes.size()));
  in.SetTotalBytesLimit(static_cast<int>(kProtobufLimit));
  return EstimateMessage(&in, descriptor, 0);
}

void ParseModelProto(const std::string& bytes, const std::string& source, onnx::ModelProto* model) {
  const auto open = [&] {
    return std::make_unique<google::protobuf::io::ArrayInputStream>(bytes.data(), static_cast<int>(std::min<size_t>(bytes.size(), kProtobufLimit)));
  };
  ParseModelStream(open, static_cast<int64_t>(bytes.size()), source, model);
}

void LoadModelProto(const std::string& path, onnx::ModelProto* model) {
  const int64_t size = FileSize(path);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) ThrowInputError(path, ": cannot open for reading: ", std::strerror(errno));
  struct Close {
    int fd;
    ~Close() { ::close(fd); }
  } closer{fd};
  const auto open = [&] {
    if (::lseek(fd, 0, SEEK_SET) != 0) ThrowInputError(path, ": cannot seek: ", std::strerror(errno));
    return std::make_unique<google::protobuf::io::FileInputStream>(fd, 1 << 20);
  };
  ParseModelStream(open, size, path, model);
}

void SaveModelProto(const onnx::ModelProto& model, const std::string& path, const std::string& never_overwrite) {
  namespace fs = std::filesystem;
  if (!never_overwrite.empty()) {
    std::error_code ec;
    if (fs::exists(path, ec) && fs::equivalent(path, never_overwrite, ec)) {
      ThrowUsageError("refusing to overwrite the input model ", never_overwrite, " with the output ", path);
    }
  }
  TemporaryFile file(path);
  SerializeModelTo(model, &file);
  AtomicFileSet files;
  files.Add(std::move(file));
  files.Commit();
}

namespace {

// protobuf's output into a TemporaryFile; a failed write is kept for the caller (exceptions do not cross
// protobuf's code).
class TemporaryFileOutput final : public google::protobuf::io::CopyingOutputStream {
 public:
  explicit TemporaryFileOutput(TemporaryFile* file) : file_(file) {}
  bool Write(const void* buffer, int size) override {
    if (error_) return false;
    try {
      file_->Write(buffer, static_cast<size_t>(size));
      return true;
    } catch (const Error&) {
      error_ = std::current_exception();
      return false;
    }
  }
  std::exception_ptr error() const { return error_; }

 private:
  TemporaryFile* file_;
  std::exception_ptr error_;
};

}  // namespace

void SerializeModelTo(const onnx::ModelProto& model, TemporaryFile* file) {
  TemporaryFileOutput sink(file);
  bool ok;
  {
    google::protobuf::io::CopyingOutputStreamAdaptor out(&sink, 1 << 20);
    google::protobuf::io::CodedOutputStream coded(&out);
    coded.SetSerializationDeterministic(true);
    ok = model.SerializeToCodedStream(&coded);
    coded.Trim();
    ok = ok && !coded.HadError() && out.Flush();
  }
  if (sink.error()) std::rethrow_exception(sink.error());
  if (!ok) ThrowInputError(file->destination(), ": the model could not be serialized (protobuf limits a model to 2 GiB)");
}

onnx::ModelProto CopyWithoutInitializers(const onnx::ModelProto& model) {
  google::protobuf::FieldMask fields;  // every field but graph.initializer
  for (const auto* d : {onnx::ModelProto::descriptor(), onnx::GraphProto::descriptor()}) {
    const std::string prefix = d == onnx::GraphProto::descriptor() ? "graph." : "";
    for (int i = 0; i < d->field_count(); ++i) {
      const std::string& name = d->field(i)->name();
      if (name != "graph" && name != "initializer") fields.add_paths(prefix + name);
    }
  }
  onnx::ModelProto copy;
  google::protobuf::util::FieldMaskUtil::MergeMessageTo(model, fields, {}, &copy);
  if (model.has_graph()) copy.mutable_graph();  // a graph with no field set but initializers stays a graph
  return copy;
}

onnx::ModelProto CopyForShapeInference(const onnx::ModelProto& model, int64_t max_elements) {
  onnx::ModelProto copy = CopyWithoutInitializers(model);
  for (const onnx::TensorProto& t : model.graph().initializer()) {
    int64_t n = 1;
    for (int64_t d : t.dims()) n *= d;
    onnx::TensorProto* c = copy.mutable_graph()->add_initializer();
    if (n <= max_elements && t.data_location() != onnx::TensorProto::EXTERNAL) {
      *c = t;
      continue;
    }
    c->set_name(t.name());
    c->set_data_type(t.data_type());
    *c->mutable_dims() = t.dims();
  }
  return copy;
}

std::string SerializeModelProto(const onnx::ModelProto& model, const std::string& where) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream out(&bytes);
    google::protobuf::io::CodedOutputStream coded(&out);
    coded.SetSerializationDeterministic(true);
    if (!model.SerializeToCodedStream(&coded)) {
      ThrowInputError(where, ": the model could not be serialized (protobuf limits a model to 2 GiB)");
    }
  }
  return bytes;
}

}  // namespace ptq
