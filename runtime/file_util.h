// Reading files with size limits and writing them atomically (temporary file, flush, rename).
#pragma once

#include <cstdint>
#include <string>

namespace ptq {

// Reads a whole file. Throws an input error naming the path when it cannot be opened or is larger
// than max_bytes.
std::string ReadFileToString(const std::string& path, int64_t max_bytes);

// Size of a regular file in bytes; throws an input error naming the path when it is not one.
int64_t FileSize(const std::string& path);

// Writes `bytes` to a temporary file in the destination's folder, flushes it to disk, then renames
// it over `path`: a reader sees either the previous file or the complete new one, never a partial one.
// The temporary file is removed on failure.
void WriteFileAtomic(const std::string& path, const std::string& bytes);  // creates missing parent folders

// Replaces characters that cannot be in a file name on common systems ('/', '\\', ':', '*', '?', '"',
// '<', '>', '|', control characters) with '_'. "." and ".." become "_" and "__".
std::string SanitizeFileName(const std::string& name);

}  // namespace ptq
