// SHA-256 digests (FIPS 180-4) for the provenance of models, configs and calibration tables.
#pragma once

#include <cstdint>
#include <string>

namespace ptq {

// Lower-case hex SHA-256 of the bytes.
std::string Sha256Hex(const std::string& bytes);

}  // namespace ptq
