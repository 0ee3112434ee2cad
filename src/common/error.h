// The error model of kbdata's lower layers.
//
// Corrupt or unsupported input and I/O failures are thrown as one small hierarchy rooted at
// kbdata::Error. An error carries a Location that layers fill in as it travels up: a decoder knows
// only what went wrong, the page reader adds the byte offset, the file reader adds the file, row
// group and column. what() renders everything as one line:
//
//   data.parquet: row group 0, column 'score', byte 4711: RLE run overruns the page
//
// A message may name options a library's caller gave (OptionName): a library names them by their
// option names and their values ("threshold 1.5: must be in (0, 1]"), and each edge spells them
// its own way when it shows the error (spelled(): the command line's flags, "--threshold 1.5",
// the Python module's keywords, "threshold=1.5"). No library spells a flag.
//
// Errors become messages and exit codes only at the edge (the CLI).
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace kbdata {

struct Location {
  std::string file;
  std::optional<int> row_group;
  std::string column;
  std::optional<int64_t> byte_offset;

  // "file: row group N, column 'c', byte B" with the parts that are known.
  [[nodiscard]] std::string str() const;
};

// An option of a library's entry point named in an error message. `name` is its option name:
// lower-case words joined by '_', the words both the command line's flag and the Python keyword
// are made of ("min_speedup": --min-speedup, min_speedup=), the name callers know it by rather
// than a struct's field.
struct OptionName {
  // The option itself, or a value-taking option with no value in mind (--out, out=).
  explicit OptionName(std::string option_name) : name(std::move(option_name)) {}
  // The option given `value_text` (the value as the message shows it: "1.5", "'xml'", a path).
  OptionName(std::string option_name, std::string value_text)
      : name(std::move(option_name)), value(std::move(value_text)) {}
  // An on/off option, named as turned on (--trajectories, trajectories=True).
  [[nodiscard]] static OptionName flag(std::string option_name) {
    OptionName o(std::move(option_name));
    o.is_flag = true;
    return o;
  }

  std::string name;
  std::optional<std::string> value;
  bool is_flag = false;
};

// How an edge shows an option in a message.
using OptionSpelling = std::string (*)(const OptionName& option);

// A library's own spelling, what() uses: the name, then the value after a space ("threshold 1.5",
// "trajectories", "out").
[[nodiscard]] std::string library_spelling(const OptionName& option);

class Error : public std::exception {
 public:
  explicit Error(std::string message) : message_(std::move(message)) { render(); }
  // A message of texts and the options it names, in order:
  //   UsageError(OptionName("threshold", "1.5"), ": must be in (0, 1]")
  template <typename... Parts>
  requires(std::same_as<std::remove_cvref_t<Parts>, OptionName> ||
           ...) explicit Error(Parts&&... parts)
      : texts_(1) {
    (add_part(std::forward<Parts>(parts)), ...);
    message_ = message_spelled(library_spelling);
    render();
  }

  // Fill in location parts that are still unknown; known parts are kept (the innermost layer that
  // knew a part was the most precise). They return Error&: to add context while an error travels,
  // catch by reference, locate, and `throw;` (never `throw e.locate_...()`, which would slice).
  Error& locate_file(const std::string& file);
  Error& locate_row_group(int row_group);
  Error& locate_column(const std::string& column);
  Error& locate_offset(int64_t byte_offset);

  // The message without its location, options spelled by library_spelling.
  [[nodiscard]] const std::string& message() const { return message_; }
  [[nodiscard]] const Location& location() const { return location_; }
  [[nodiscard]] const std::vector<OptionName>& options() const { return options_; }
  [[nodiscard]] const char* what() const noexcept override { return rendered_.c_str(); }
  // what() with the options the message names spelled by `spelling`.
  [[nodiscard]] std::string spelled(OptionSpelling spelling) const;

 private:
  void add_part(std::string_view text) { texts_.back() += text; }
  void add_part(OptionName option) {
    options_.push_back(std::move(option));
    texts_.emplace_back();
  }
  [[nodiscard]] std::string message_spelled(OptionSpelling spelling) const;
  void render();

  // A message naming options is texts_[0], options_[0], texts_[1], ..., options_[n - 1],
  // texts_[n]; any other is message_ alone.
  std::vector<std::string> texts_;
  std::vector<OptionName> options_;
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
