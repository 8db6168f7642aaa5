// .onnx file reading and atomic writing.
#include "runtime/model_io.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <onnx/onnx_pb.h>

#include <filesystem>

#include "runtime/error.h"
#include "runtime/file_util.h"
#include "runtime/tensor.h"

namespace ptq {

namespace {

constexpr int64_t kProtobufLimit = (int64_t{2} << 30) - 1;
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

}  // namespace

int64_t EstimateParsedBytes(const std::string& bytes, const google::protobuf::Descriptor* descriptor) {
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()), static_cast<int>(bytes.size()));
  in.SetTotalBytesLimit(static_cast<int>(kProtobufLimit));
  return EstimateMessage(&in, descriptor, 0);
}

void ParseModelProto(const std::string& bytes, const std::string& source, onnx::ModelProto* model) {
  if (static_cast<int64_t>(bytes.size()) > kProtobufLimit) {
    ThrowInputError(source, ": ", bytes.size(), " bytes is over protobuf's 2 GiB limit (keep weights in external data)");
  }
  const int64_t need = EstimateParsedBytes(bytes, onnx::ModelProto::descriptor());
  if (need < 0) {
    ThrowInputError(source, ": not a valid ONNX model (the protobuf could not be parsed; is the file truncated?)");
  }
  if (need > MaxModelBytes()) {
    ThrowInputError(source, ": the model would need about ", need, " bytes of memory once parsed, more than the memory limit of ",
                    MaxModelBytes(), " bytes");
  }
  google::protobuf::io::ArrayInputStream raw(bytes.data(), static_cast<int>(bytes.size()));
  google::protobuf::io::CodedInputStream coded(&raw);
  coded.SetTotalBytesLimit(static_cast<int>(kProtobufLimit));
  coded.SetRecursionLimit(kRecursionLimit);
  if (!model->ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage()) {
    ThrowInputError(source, ": not a valid ONNX model (the protobuf could not be parsed; is the file truncated?)");
  }
  if (!model->has_graph()) ThrowInputError(source, ": the ONNX model has no graph (is the file truncated?)");
}

void LoadModelProto(const std::string& path, onnx::ModelProto* model) {
  ParseModelProto(ReadFileToString(path, kProtobufLimit), path, model);
}

void SaveModelProto(const onnx::ModelProto& model, const std::string& path, const std::string& never_overwrite) {
  namespace fs = std::filesystem;
  if (!never_overwrite.empty()) {
    std::error_code ec;
    if (fs::exists(path, ec) && fs::equivalent(path, never_overwrite, ec)) {
      ThrowUsageError("refusing to overwrite the input model ", never_overwrite, " with the output ", path);
    }
  }
  WriteFileAtomic(path, SerializeModelProto(model, path));
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
