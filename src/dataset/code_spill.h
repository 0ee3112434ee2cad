// Code set aside on disk while a command works on rows without it (kbdata dedup, kbdata pairs): the
// texts snappy-compressed into one unlinked temporary file, read back by entry. Memory holds only
// the entries (16 bytes each), never the code.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kbdata::dataset {

class CodeSpill {
 public:
  // Creates the file in `dir` ("" for the working folder) and unlinks it at once: it disappears
  // when closed, whatever ends the process. Throws IoError naming the folder.
  explicit CodeSpill(const std::string& dir);
  ~CodeSpill();
  CodeSpill(const CodeSpill&) = delete;
  CodeSpill& operator=(const CodeSpill&) = delete;

  struct Entry {
    uint64_t offset = 0;
    uint32_t compressed = 0;
    uint32_t raw = 0;
  };

  // `text` snappy-compressed into `out` (replacing it): what append takes. Thread-safe.
  static void compress(std::string_view text, std::vector<uint8_t>& out);
  // Appends a compress() output of a text of `raw` bytes. Not thread-safe. Throws IoError.
  Entry append(std::span<const uint8_t> compressed, size_t raw);
  // Reads entry `e` into `text`; `compressed` is scratch. Thread-safe (pread). Throws IoError.
  void read(const Entry& e, std::vector<uint8_t>& compressed, std::string& text) const;

  // Bytes appended so far.
  [[nodiscard]] uint64_t size() const { return size_; }

 private:
  int fd_ = -1;
  std::string name_;
  uint64_t size_ = 0;
};

}  // namespace kbdata::dataset
