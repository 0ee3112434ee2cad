// Whether a text holds any of a few fixed byte strings, in one pass: each position is tested at
// once against every string's first three bytes (by their nibbles, in eight buckets), and only the
// positions that pass are compared in full. The screen of the audit looks for the texts its rules
// read in every string a code holds (audit/code_screen.h).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

namespace kbdata::source {

class Substrings {
 public:
  // `needles`: at least three bytes each, kept by view (they must outlive this object).
  explicit Substrings(const std::vector<std::string_view>& needles);

  // Whether `text` holds one of the needles. `readable_end`, when given, is how far past the text
  // its buffer may be read (the text of a string inside a code): a short text is then tested in
  // one vector step.
  [[nodiscard]] bool any_in(std::string_view text, const char* readable_end = nullptr) const;

  // Where in `text` a needle starts, in order, each position once.
  [[nodiscard]] std::vector<uint32_t> positions(std::string_view text) const;

 private:
  // The first match from `from` on (all of them when `all`, into `out`); whether there was one.
  bool scan_portable(std::string_view text, size_t from, bool all,
                     std::vector<uint32_t>* out) const;
  bool scan_avx2(std::string_view text, const char* readable_end, bool all,
                 std::vector<uint32_t>* out) const;
  [[nodiscard]] bool matches_at(std::string_view text, size_t at, uint8_t buckets) const;

  std::vector<std::string_view> needles_;
  std::array<std::vector<uint16_t>, 8> bucket_;  // needles_ indices by bucket
  // For each of the first three positions, the buckets a low and a high nibble allow.
  std::array<std::array<uint8_t, 16>, 3> low_{};
  std::array<std::array<uint8_t, 16>, 3> high_{};
};

}  // namespace kbdata::source
