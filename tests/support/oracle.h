// Test-only: the `medium` synthetic data set and DuckDB (from the npm peers, loaded with dlopen)
// for tests that check kbdata's analyses against an independent SQL implementation of the same
// rules (docs/analyses.md, "How the analyses are tested").
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "../../bench/duckdb_c_api.h"
#include "support/run_kbdata.h"

namespace kbdata::testing {

// A folder with `kbdata synth --scale medium --seed 3 --family both --layout kbdata` (about
// 50 MB, under 2 s), made once per test program and removed at its exit.
inline const std::string& medium_data() {
  struct Folder {
    std::string path;
    ~Folder() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  };
  static const std::unique_ptr<Folder> folder = [] {
    auto f = std::make_unique<Folder>();
    f->path =
        (std::filesystem::temp_directory_path() / ("kbdata-medium-" + std::to_string(::getpid())))
            .string();
    Result r = run("synth --scale medium --seed 3 --family both --layout kbdata --out " + f->path);
    if (r.exit_code != 0) throw std::runtime_error("kbdata synth failed: " + r.err);
    return f;
  }();
  return folder->path;
}

// DuckDB in memory, from tools/peers (installed by scripts/install-deps).
inline bench::DuckDb& duckdb() {
  static bench::DuckDb db(bench::duckdb_library(KBDATA_SOURCE_DIR));
  return db;
}

// SQL text of a file path (single quotes doubled).
inline std::string sql_path(const std::string& path) {
  std::string out = "'";
  for (char c : path) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out + "'";
}

}  // namespace kbdata::testing
