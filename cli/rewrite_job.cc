// RunRewrite: the table's model check, the rewrite and the atomic write of the model and its data file.
#include "cli/rewrite_job.h"

#include <filesystem>

#include "calibrate/calibration_config.h"
#include "runtime/error.h"
#include "runtime/external_data_writer.h"
#include "runtime/file_util.h"
#include "runtime/model_io.h"
#include "runtime/sha256.h"

namespace ptq {

RewriteOutcome RunRewrite(const ConfigFile& config, const QuantTable& table, const std::string& table_origin,
                          const std::string& out) {
  const QuantizationOptions rc = ParseQuantizationOptions(config.json);
  const std::string model_digest = Sha256FileHex(config.model);
  if (table.model_sha256 != model_digest) {
    ThrowInputError(table_origin, ": this table was made for another model (its model_sha256 ", table.model_sha256,
                    " differs from ", config.model, "'s ", model_digest, ")");
  }
  std::error_code ec;
  if (std::filesystem::exists(out, ec) && std::filesystem::equivalent(out, config.model, ec)) {
    ThrowUsageError("refusing to overwrite the input model ", config.model, " with the output ", out);
  }
  onnx::ModelProto model;
  LoadModelProto(config.model, &model);
  const auto metadata = QuantizedModelMetadata(config, table.file_sha256, model_digest);
  RewriteOutcome r;
  ExternalDataWriter data(out);
  onnx::ModelProto q = RewriteModel(std::move(model), ModelFolder(config), table, rc, metadata, &r.info, &data);
  AtomicFileSet files;
  r.written = AddModelFiles(&files, std::move(q), &data, out, config.output_external_data);
  files.Commit();
  RemoveStaleDataFiles(out, r.written);
  return r;
}

}  // namespace ptq
