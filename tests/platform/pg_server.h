// A throwaway PostgreSQL server for tests: Debian's initdb and pg_ctl (/usr/lib/postgresql/N/bin,
// or $KBDATA_PG_BIN) in a temporary folder, listening on 127.0.0.1 and a free port, with
// password (SCRAM) authentication for the superuser `kb`. As root, the server runs as the
// `postgres` user (initdb refuses root), which owns the folder. stop() or the destructor stops
// it and removes the folder.
#pragma once

#include <sys/resource.h>

#include <string>
#include <vector>

namespace kbdata::testing {

// A child process's outcome.
struct ChildResult {
  int exit_code = -1;  // -1: killed by a signal
  std::string out;
  std::string err;
  long max_rss_kb = 0;  // peak resident memory of the child (getrusage)
};

// Runs argv[0] with its arguments, capturing stdout and stderr. `as_user`: run as that user
// (requires root); empty: as ourselves.
ChildResult run_child(const std::vector<std::string>& argv, const std::string& as_user = "");

class PgServer {
 public:
  // Throws std::runtime_error with the server's log if it cannot be created or started.
  PgServer();
  ~PgServer();
  PgServer(const PgServer&) = delete;
  PgServer& operator=(const PgServer&) = delete;

  // A URL for database `db` with the right password.
  [[nodiscard]] std::string url(const std::string& db) const;
  // The same with a wrong password.
  [[nodiscard]] std::string url_wrong_password(const std::string& db) const;
  [[nodiscard]] int port() const { return port_; }
  // Creates database `db`.
  void create_database(const std::string& db);
  void start();
  void stop();  // fast shutdown: sessions are terminated

 private:
  std::string bin(const std::string& tool) const;
  ChildResult pg(const std::vector<std::string>& argv) const;

  std::string bin_dir_;
  std::string user_;  // "" when not root
  std::string dir_;
  int port_ = 0;
  bool running_ = false;
};

}  // namespace kbdata::testing
