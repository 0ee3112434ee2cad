// Decoding of the `code` column (docs/dataset.md §4.2, "Code decoding"), with counters of what was
// repaired so that commands can report it (--verbose).
//
//   stored value                          result
//   "\x" + 2n hex digits (either case)    the n bytes, then UTF-8 with U+FFFD replacement
//   "\x" + anything else (odd count, a    kept as it is (then UTF-8 with replacement)
//     non-hex character, no digits)
//   anything else                         UTF-8 with U+FFFD replacement
//
// The same rule applies to a STRING column and to a binary (BYTE_ARRAY without a string
// annotation) column; the latter is counted as `from_binary`. A hex escape is decoded once (a
// value that decodes to another "\x..." text stays that text).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace kbdata::dataset {

struct CodeRepairCounts {
  uint64_t values = 0;         // code values decoded
  uint64_t from_binary = 0;    // values read from a binary (not STRING) column
  uint64_t hex_decoded = 0;    // "\x" hex escapes decoded
  uint64_t hex_invalid = 0;    // "\x" values whose hex was invalid, kept as stored
  uint64_t utf8_repaired = 0;  // values with ill-formed UTF-8 replaced by U+FFFD

  // Values changed by decoding (hex decoded or UTF-8 repaired; a value counts once).
  uint64_t repaired = 0;

  CodeRepairCounts& operator+=(const CodeRepairCounts& other);
};

// Decodes one stored code value. `binary_column` says whether the column is binary rather than
// STRING. Never throws.
[[nodiscard]] std::string decode_code(std::string_view stored, bool binary_column,
                                      CodeRepairCounts& counts);

// decode_code() without a copy where decoding changes nothing: `stored` itself when it needs no
// decoding (no valid "\x" escape, valid UTF-8: the common case), else the decoded text, built in
// `scratch`. The view lives as long as `stored` and `scratch` do. Counts as decode_code() does.
[[nodiscard]] std::string_view decode_code_view(std::string_view stored, bool binary_column,
                                                CodeRepairCounts& counts, std::string& scratch);

// The size in bytes of what decode_code() returns for `stored`, counted in `counts` as decode_code
// counts it, without building the text when nothing needs decoding (no "\x" escape, valid UTF-8):
// the common case costs one UTF-8 check. Never throws.
[[nodiscard]] uint64_t decoded_code_size(std::string_view stored, bool binary_column,
                                         CodeRepairCounts& counts);

// decoded_code_size() as one number, for a scan that measures the code column where it decodes
// it (parquet::ValueMeasure, so the text is never copied out of its page): the size in the low
// 56 bits, and in bits 56-59 whether decoding hex-decoded the value, found its hex invalid,
// repaired its UTF-8, changed it. Never throws.
[[nodiscard]] uint64_t code_size_measure(std::span<const uint8_t> stored);

// The size a code_size_measure() holds, with the value counted in `counts` as decoded_code_size()
// counts it.
[[nodiscard]] uint64_t count_code_size_measure(uint64_t measure, bool binary_column,
                                               CodeRepairCounts& counts);

// Sets `out` to the bytes of a "\x" hex escape and returns true; returns false (out unspecified)
// when `stored` is not one: no "\x" prefix, no digits, an odd number of digits, or a non-hex
// character.
[[nodiscard]] bool decode_hex_escape(std::string_view stored, std::string& out);

}  // namespace kbdata::dataset
