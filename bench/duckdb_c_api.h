// The few functions of DuckDB's C API the benchmarks call, declared here (no DuckDB header ships
// with the npm package) and loaded at run time from the package's libduckdb.so with dlopen, so
// kbdata never links against DuckDB.
//
// The declarations follow DuckDB's documented C API (duckdb.h, stable since 1.0): handles are
// pointers to opaque structs, functions return duckdb_state (0 success, 1 error), and
// duckdb_result is a caller-allocated struct of six pointer-sized fields.
#pragma once

#include <dlfcn.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace kbdata::bench {

struct DuckDbResult {  // duckdb_result: deprecated fields, then the internal data pointer
  uint64_t column_count;
  uint64_t row_count;
  uint64_t rows_changed;
  void* columns;
  char* error_message;
  void* internal_data;
};

// DuckDB loaded from `library` (path to libduckdb.so), with one in-memory database and connection.
class DuckDb {
 public:
  explicit DuckDb(const std::string& library) {
    handle_ = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle_ == nullptr) throw std::runtime_error("cannot load " + library + ": " + ::dlerror());
    load(open_, "duckdb_open");
    load(connect_, "duckdb_connect");
    load(query_, "duckdb_query");
    load(result_error_, "duckdb_result_error");
    load(destroy_result_, "duckdb_destroy_result");
    load(value_int64_, "duckdb_value_int64");
    load(value_double_, "duckdb_value_double");
    load(value_varchar_, "duckdb_value_varchar");
    load(value_is_null_, "duckdb_value_is_null");
    load(free_, "duckdb_free");
    load(row_count_, "duckdb_row_count");
    load(column_count_, "duckdb_column_count");
    load(disconnect_, "duckdb_disconnect");
    load(close_, "duckdb_close");
    load(arrow_scan_, "duckdb_arrow_scan");
    if (open_(nullptr, &database_) != 0) throw std::runtime_error("duckdb_open failed");
    if (connect_(database_, &connection_) != 0) throw std::runtime_error("duckdb_connect failed");
  }
  ~DuckDb() {
    if (connection_ != nullptr) disconnect_(&connection_);
    if (database_ != nullptr) close_(&database_);
    // The library stays loaded: DuckDB's threads and static destructors may still run.
  }
  DuckDb(const DuckDb&) = delete;
  DuckDb& operator=(const DuckDb&) = delete;

  // Runs `sql`; throws with DuckDB's message on failure.
  void run(const std::string& sql) {
    DuckDbResult result{};
    int state = query_(connection_, sql.c_str(), &result);
    std::string error =
        state != 0 && result_error_(&result) != nullptr ? result_error_(&result) : "";
    destroy_result_(&result);
    if (state != 0) throw std::runtime_error("DuckDB: " + error + " in: " + sql);
  }

  // Runs `sql` and returns its first row's first two columns as an integer and a double (a count
  // and a sum); throws with DuckDB's message on failure.
  std::pair<int64_t, double> count_and_sum(const std::string& sql) {
    DuckDbResult result{};
    int state = query_(connection_, sql.c_str(), &result);
    std::string error =
        state != 0 && result_error_(&result) != nullptr ? result_error_(&result) : "";
    std::pair<int64_t, double> values;
    if (state == 0) values = {value_int64_(&result, 0, 0), value_double_(&result, 1, 0)};
    destroy_result_(&result);
    if (state != 0) throw std::runtime_error("DuckDB: " + error + " in: " + sql);
    return values;
  }

  // Runs `sql` and returns every row, each value as DuckDB's text of it (nullopt for NULL); for
  // tests that compare kbdata's results with DuckDB's (small results only).
  std::vector<std::vector<std::optional<std::string>>> rows(const std::string& sql) {
    DuckDbResult result{};
    int state = query_(connection_, sql.c_str(), &result);
    std::string error =
        state != 0 && result_error_(&result) != nullptr ? result_error_(&result) : "";
    std::vector<std::vector<std::optional<std::string>>> out;
    if (state == 0) {
      for (uint64_t r = 0; r < row_count_(&result); ++r) {
        std::vector<std::optional<std::string>> row;
        for (uint64_t c = 0; c < column_count_(&result); ++c) {
          if (value_is_null_(&result, c, r)) {
            row.emplace_back();
            continue;
          }
          char* text = value_varchar_(&result, c, r);
          row.emplace_back(text != nullptr ? std::string(text) : std::string());
          if (text != nullptr) free_(text);
        }
        out.push_back(std::move(row));
      }
    }
    destroy_result_(&result);
    if (state != 0) throw std::runtime_error("DuckDB: " + error + " in: " + sql);
    return out;
  }

  // Registers `stream` (an Arrow C stream, struct ArrowArrayStream*) as the view `name`
  // (duckdb_arrow_scan). DuckDB reads the stream when a query reads the view, once: the caller
  // keeps the stream, and releases it when the queries are done.
  void arrow_scan(const std::string& name, void* stream) {
    if (arrow_scan_(connection_, name.c_str(), stream) != 0) {
      throw std::runtime_error("DuckDB: duckdb_arrow_scan of " + name + " failed");
    }
  }

 private:
  template <typename F>
  void load(F& function, const char* name) {
    function = reinterpret_cast<F>(::dlsym(handle_, name));
    if (function == nullptr) throw std::runtime_error(std::string("libduckdb lacks ") + name);
  }

  void* handle_ = nullptr;
  void* database_ = nullptr;
  void* connection_ = nullptr;
  int (*open_)(const char*, void**) = nullptr;
  int (*connect_)(void*, void**) = nullptr;
  int (*query_)(void*, const char*, DuckDbResult*) = nullptr;
  const char* (*result_error_)(DuckDbResult*) = nullptr;
  void (*destroy_result_)(DuckDbResult*) = nullptr;
  int64_t (*value_int64_)(DuckDbResult*, uint64_t, uint64_t) = nullptr;  // (result, column, row)
  double (*value_double_)(DuckDbResult*, uint64_t, uint64_t) = nullptr;
  char* (*value_varchar_)(DuckDbResult*, uint64_t, uint64_t) = nullptr;
  bool (*value_is_null_)(DuckDbResult*, uint64_t, uint64_t) = nullptr;
  void (*free_)(void*) = nullptr;
  uint64_t (*row_count_)(DuckDbResult*) = nullptr;
  uint64_t (*column_count_)(DuckDbResult*) = nullptr;
  void (*disconnect_)(void**) = nullptr;
  void (*close_)(void**) = nullptr;
  int (*arrow_scan_)(void*, const char*, void*) = nullptr;  // (connection, name, stream)
};

// libduckdb.so of the npm peers in the source tree.
inline std::string duckdb_library(const std::string& source_dir) {
  return source_dir + "/tools/peers/node_modules/@duckdb/node-bindings-linux-x64/libduckdb.so";
}

}  // namespace kbdata::bench
