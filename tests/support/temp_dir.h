// A temporary folder of its own for a test (mkdtemp under the system's temporary folder), removed
// with everything in it when the test ends.
#pragma once

#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

namespace kbdata::testing {

class TempDir {
 public:
  // `prefix` names the folder (kbdata-PREFIX-XXXXXX), for whoever finds one left behind.
  explicit TempDir(const std::string& prefix = "test") {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / ("kbdata-" + prefix + "-XXXXXX")).string();
    if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  [[nodiscard]] std::string file(const std::string& name) const { return path_ + "/" + name; }
  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] bool empty() const { return std::filesystem::is_empty(path_); }
  // The names in the folder, sorted, temporaries included.
  [[nodiscard]] std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(path_)) {
      out.push_back(e.path().filename());
    }
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  std::string path_;
};

}  // namespace kbdata::testing
