#include "source/embedded.h"

#include <cctype>
#include <string>

namespace kbdata::source {

bool reads_as_cpp(std::string_view body) {
  // #include first: rare elsewhere, and most sources start with one.
  return body.find("#include") != std::string_view::npos ||
         body.find("__global__") != std::string_view::npos ||
         body.find("__device__") != std::string_view::npos ||
         body.find("extern \"C\"") != std::string_view::npos;
}

bool is_cpp_source(std::string_view code, std::string_view file_name) {
  for (std::string_view ext : {".cu", ".cuh", ".cpp", ".cc", ".hip", ".h", ".hpp"}) {
    if (file_name.ends_with(ext)) return true;
  }
  if (!file_name.empty()) return false;
  size_t i = 0;
  while (i < code.size() && std::isspace(static_cast<unsigned char>(code[i]))) ++i;
  const std::string_view rest = code.substr(i);
  return rest.starts_with("#include") || rest.starts_with("#pragma");
}

}  // namespace kbdata::source
