// A connection to the platform database through libpq, with the few operations kbdata needs:
// statements (results as text, or in binary: the export's cursor), and COPY FROM STDIN for
// seeding.
//
// Every failure throws DatabaseError whose message is one line naming the server
// ("database HOST:PORT/DB") and what libpq or the server said; the password of a URL is never
// part of a message.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"

struct pg_conn;
struct pg_result;

namespace kbdata::platform {

// The database refused or lost the connection, or a statement failed.
class DatabaseError : public Error {
 public:
  using Error::Error;
};

// One result set; values are borrowed from it and live as long as it does.
class Result {
 public:
  explicit Result(pg_result* result) : result_(result) {}
  ~Result();
  Result(Result&& other) noexcept : result_(other.result_) { other.result_ = nullptr; }
  Result& operator=(Result&& other) noexcept;
  Result(const Result&) = delete;
  Result& operator=(const Result&) = delete;

  [[nodiscard]] int rows() const;
  [[nodiscard]] int columns() const;
  [[nodiscard]] bool is_null(int row, int column) const;
  // The value's bytes (text or binary, as the statement asked).
  [[nodiscard]] std::string_view bytes(int row, int column) const;
  // Binary-format values (network byte order). REQUIRES: not null, the column has that type.
  [[nodiscard]] int64_t int64(int row, int column) const;
  [[nodiscard]] double float64(int row, int column) const;
  [[nodiscard]] bool boolean(int row, int column) const;

 private:
  pg_result* result_;
};

class Connection {
 public:
  // Connects to `url` (a libpq connection URI or key=value string). `application_name` shows in
  // pg_stat_activity. Throws DatabaseError naming the server if the connection fails.
  static std::unique_ptr<Connection> connect(const std::string& url,
                                             const std::string& application_name);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // "database HOST:PORT/DB": how messages name this server.
  [[nodiscard]] const std::string& name() const { return name_; }

  // Runs `sql` (one or more statements; text results of the last). Throws DatabaseError.
  Result exec(const std::string& sql);
  // Runs one statement with text parameters ($1, ...) and results in binary format.
  Result exec_binary(const std::string& sql, const std::vector<std::string>& params = {});

  // COPY ... FROM STDIN: copy_begin() sends the statement, copy_data() the text-format rows,
  // copy_end() finishes it and throws DatabaseError if the server rejected any row.
  void copy_begin(const std::string& copy_sql);
  void copy_data(std::string_view data);
  void copy_end();

 private:
  Connection(pg_conn* conn, std::string name) : conn_(conn), name_(std::move(name)) {}
  [[noreturn]] void fail(const std::string& what) const;
  Result check(pg_result* result, const std::string& what, int expected_status);

  pg_conn* conn_;
  std::string name_;
};

// How messages name the server of `url`: "database HOST:PORT/DB", without user or password.
[[nodiscard]] std::string describe_url(const std::string& url);

// libpq's message as one line: newlines and tabs become "; " and spaces.
[[nodiscard]] std::string one_line(std::string_view message);

}  // namespace kbdata::platform
