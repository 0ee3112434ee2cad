#include "platform/connection.h"

#include <libpq-fe.h>

#include <cstring>

#include "platform/libpq_api.h"

namespace kbdata::platform {

std::string one_line(std::string_view message) {
  std::string out;
  bool line_start = false;
  for (char c : message) {
    if (c == '\n') {
      out += "; ";
      line_start = true;
    } else if (c == '\t' || c == '\r' || c == ' ') {
      if (!line_start) out += ' ';  // libpq indents continuation lines
    } else {
      out += c;
      line_start = false;
    }
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == ';')) out.pop_back();
  return out;
}

std::string describe_url(const std::string& url) {
  char* error = nullptr;
  PQconninfoOption* options = libpq().PQconninfoParse(url.c_str(), &error);
  if (options == nullptr) {
    if (error != nullptr) libpq().PQfreemem(error);
    return "database (unparsable connection string)";
  }
  std::string host, port, dbname;
  for (PQconninfoOption* o = options; o->keyword != nullptr; ++o) {
    if (o->val == nullptr) continue;
    if (std::strcmp(o->keyword, "host") == 0 ||
        (host.empty() && std::strcmp(o->keyword, "hostaddr") == 0))
      host = o->val;
    if (std::strcmp(o->keyword, "port") == 0) port = o->val;
    if (std::strcmp(o->keyword, "dbname") == 0) dbname = o->val;
  }
  libpq().PQconninfoFree(options);
  std::string name = "database " + (host.empty() ? std::string("localhost") : host);
  if (!port.empty()) name += ":" + port;
  if (!dbname.empty()) name += "/" + dbname;
  return name;
}

Result::~Result() {
  if (result_ != nullptr) libpq().PQclear(result_);
}

Result& Result::operator=(Result&& other) noexcept {
  if (this != &other) {
    if (result_ != nullptr) libpq().PQclear(result_);
    result_ = other.result_;
    other.result_ = nullptr;
  }
  return *this;
}

int Result::rows() const { return libpq().PQntuples(result_); }
int Result::columns() const { return libpq().PQnfields(result_); }
bool Result::is_null(int row, int column) const {
  return libpq().PQgetisnull(result_, row, column) != 0;
}

std::string_view Result::bytes(int row, int column) const {
  return {libpq().PQgetvalue(result_, row, column),
          static_cast<size_t>(libpq().PQgetlength(result_, row, column))};
}

namespace {
uint64_t big_endian(std::string_view bytes, size_t size) {
  uint64_t v = 0;
  for (size_t i = 0; i < size && i < bytes.size(); ++i) {
    v = (v << 8) | static_cast<uint8_t>(bytes[i]);
  }
  return v;
}
}  // namespace

int64_t Result::int64(int row, int column) const {
  return static_cast<int64_t>(big_endian(bytes(row, column), 8));
}

double Result::float64(int row, int column) const {
  uint64_t bits = big_endian(bytes(row, column), 8);
  double v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

bool Result::boolean(int row, int column) const {
  std::string_view b = bytes(row, column);
  return !b.empty() && b[0] != 0;
}

std::unique_ptr<Connection> Connection::connect(const std::string& url,
                                                const std::string& application_name) {
  const std::string name = describe_url(url);
  const char* keywords[] = {"dbname", "application_name", "connect_timeout", nullptr};
  const char* values[] = {url.c_str(), application_name.c_str(), "10", nullptr};
  // expand_dbname = 1: `url` may be a URI or a key=value string.
  pg_conn* conn = libpq().PQconnectdbParams(keywords, values, 1);
  if (conn == nullptr) throw DatabaseError(name + ": out of memory connecting");
  if (libpq().PQstatus(conn) != CONNECTION_OK) {
    std::string message = one_line(libpq().PQerrorMessage(conn));
    libpq().PQfinish(conn);
    throw DatabaseError(name + ": cannot connect: " + message);
  }
  return std::unique_ptr<Connection>(new Connection(conn, name));
}

Connection::~Connection() { libpq().PQfinish(conn_); }

void Connection::fail(const std::string& what) const {
  std::string message = one_line(libpq().PQerrorMessage(conn_));
  if (libpq().PQstatus(conn_) != CONNECTION_OK) {
    throw DatabaseError(name_ + ": connection lost during " + what + ": " + message);
  }
  throw DatabaseError(name_ + ": " + what + " failed: " + message);
}

Result Connection::check(pg_result* raw, const std::string& what, int expected_status) {
  Result result(raw);
  if (raw == nullptr) fail(what);
  if (libpq().PQresultStatus(raw) != expected_status) {
    std::string message = one_line(libpq().PQresultErrorMessage(raw));
    if (libpq().PQstatus(conn_) != CONNECTION_OK) {
      throw DatabaseError(name_ + ": connection lost during " + what + ": " + message);
    }
    throw DatabaseError(name_ + ": " + what + " failed: " + message);
  }
  return result;
}

namespace {
std::string statement_name(const std::string& sql) {
  std::string first;
  for (char c : sql) {
    if (c == ' ' || c == '\n' || c == '(' || c == ';') {
      if (!first.empty()) break;
      continue;
    }
    first += c;
  }
  return first.empty() ? "statement" : first;
}
}  // namespace

Result Connection::exec(const std::string& sql) {
  pg_result* r = libpq().PQexec(conn_, sql.c_str());
  ExecStatusType status = r != nullptr ? libpq().PQresultStatus(r) : PGRES_FATAL_ERROR;
  return check(r, statement_name(sql),
               status == PGRES_TUPLES_OK ? PGRES_TUPLES_OK : PGRES_COMMAND_OK);
}

Result Connection::exec_binary(const std::string& sql, const std::vector<std::string>& params) {
  std::vector<const char*> values;
  for (const std::string& p : params) values.push_back(p.c_str());
  pg_result* r = libpq().PQexecParams(conn_, sql.c_str(), static_cast<int>(values.size()), nullptr,
                                      values.data(), nullptr, nullptr, 1);
  ExecStatusType status = r != nullptr ? libpq().PQresultStatus(r) : PGRES_FATAL_ERROR;
  return check(r, statement_name(sql),
               status == PGRES_TUPLES_OK ? PGRES_TUPLES_OK : PGRES_COMMAND_OK);
}

void Connection::copy_begin(const std::string& copy_sql) {
  check(libpq().PQexec(conn_, copy_sql.c_str()), "COPY", PGRES_COPY_IN);
}

void Connection::copy_data(std::string_view data) {
  if (libpq().PQputCopyData(conn_, data.data(), static_cast<int>(data.size())) != 1) fail("COPY");
}

void Connection::copy_end() {
  if (libpq().PQputCopyEnd(conn_, nullptr) != 1) fail("COPY");
  check(libpq().PQgetResult(conn_), "COPY", PGRES_COMMAND_OK);
  // Drain: a COPY has exactly one result, then null.
  while (pg_result* extra = libpq().PQgetResult(conn_)) libpq().PQclear(extra);
}

}  // namespace kbdata::platform
