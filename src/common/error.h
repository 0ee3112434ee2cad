// The error model of kbdata's lower layers.
//
// Corrupt or unsupported input and I/O failures are thrown as one small hierarchy rooted at
// kbdata::Error. An error carries a Location that layers fill in as it travels up: a decoder knows
// only what went wrong, the page reader adds the byte offset, the file reader adds the file, row
// group and column. what() renders everything as one line:
//
//   data.parquet: row group 0, column 'score', byte 4711: RLE run overruns the page
//
// Errors become messages and exit codes only at the edge (the CLI).
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace kbdata {

struct Location {
  std::string file;
  std::optional<int> row_group;
  std::string column;
  std::optional<int64_t> byte_offset;

  // "file: row group N, column 'c', byte B" with the parts that are known.
  [[nodiscard]] std::string str() const;
};

class Error : public std::exception {
 public:
  explicit Error(std::string message) : message_(std::move(message)) { render(); }

  // Fill in location parts that are still unknown; known parts are kept (the innermost layer that
  // knew a part was the most precise). They return Error&: to add context while an error travels,
  // catch by reference, locate, and `throw;` (never `throw e.locate_...()`, which would slice).
  Error& locate_file(const std::string& file);
  Error& locate_row_group(int row_group);
  Error& locate_column(const std::string& column);
  Error& locate_offset(int64_t byte_offset);

  [[nodiscard]] const std::string& message() const { return message_; }
  [[nodiscard]] const Location& location() const { return location_; }
  [[nodiscard]] const char* what() const noexcept override { return rendered_.c_str(); }

 private:
  void render();

  std::string message_;
  Location location_;
  std::string rendered_;
};

// The input is not what its format says it must be (corrupt, truncated, hostile).
class FormatError : public Error {
 public:
  using Error::Error;
};

// The input ended before a structure did. A reader that holds only a window of the input (the page
// reader, say) may catch this, fetch more bytes and retry.
class TruncatedError : public FormatError {
 public:
  using FormatError::FormatError;
};

// The input is valid but uses a feature kbdata does not read.
class UnsupportedError : public Error {
 public:
  using Error::Error;
};

// The operating system refused an operation (open, read, write, rename).
class IoError : public Error {
 public:
  using Error::Error;
};

// A remote read failed for good (retries spent, or the server answered what was not asked): the
// file itself may be fine, so readers that pass over unreadable files let this one through.
class NetworkError : public IoError {
 public:
  using IoError::IoError;
};

// The system refused memory or a thread (an address-space limit, ulimit -v, say): the input may be
// fine, and fewer threads may need less.
class ResourceError : public Error {
 public:
  using Error::Error;
};

// The caller asked for something that does not exist (an unknown column name, say).
// What was asked for is not in the data (a submission id no file holds): exit status 1 on the
// command line, 404 from kbdata serve.
class NotFoundError : public Error {
 public:
  using Error::Error;
};

class UsageError : public Error {
 public:
  using Error::Error;
};

}  // namespace kbdata
