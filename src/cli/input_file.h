// The input file of `cat` and `inspect`: a local path, or an hf:// address of a data set's file
// (read from the hub's cache when it holds it, else remotely; hub/remote_data.h).
#pragma once

#include <cstdio>
#include <memory>
#include <string>

#include "common/file.h"

namespace kbdata::cli {

// Opens `path`. `log` (--verbose, may be null) gets what the hub resolved and fetched. Throws
// IoError naming the path, UsageError for a bad hf:// address, NetworkError when the hub fails.
[[nodiscard]] std::unique_ptr<RandomAccessFile> open_input_file(const std::string& path,
                                                                std::FILE* log);

}  // namespace kbdata::cli
