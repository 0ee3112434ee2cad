// The DuckDB side of the whole-process benchmarks: a small program that loads the npm package's
// libduckdb.so (duckdb_c_api.h; no DuckDB header, nothing linked), runs one SQL statement in an
// in-memory database and prints the result as CSV (DuckDB's text of each value, NULL empty), so
// that its cost is measured the way kbdata's is: start, read, compute, print, exit.
//
//   duckdb_query [--threads N] SQL
//
// Exit status 0, or 1 with DuckDB's message on stderr.
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "duckdb_c_api.h"

int main(int argc, char** argv) {
  int arg = 1;
  std::string threads;
  if (argc > 2 && std::strcmp(argv[1], "--threads") == 0) {
    threads = argv[2];
    arg = 3;
  }
  if (arg + 1 != argc) {
    std::fprintf(stderr, "usage: duckdb_query [--threads N] SQL\n");
    return 2;
  }
  try {
    kbdata::bench::DuckDb db(kbdata::bench::duckdb_library(KBDATA_SOURCE_DIR));
    if (!threads.empty()) db.run("SET threads = " + threads);
    std::string out;
    for (const auto& row : db.rows(argv[arg])) {
      for (size_t i = 0; i < row.size(); ++i) {
        if (i > 0) out += ',';
        if (row[i]) out += *row[i];
      }
      out += '\n';
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "duckdb_query: %s\n", e.what());
    return 1;
  }
}
