#include "cli/input_file.h"

#include "hub/remote_data.h"

namespace kbdata::cli {

std::unique_ptr<RandomAccessFile> open_input_file(const std::string& path, std::FILE* log) {
  if (hub::is_hf_url(path)) return hub::open_remote_file(path, {.log = log});
  return LocalFile::open(path);
}

}  // namespace kbdata::cli
