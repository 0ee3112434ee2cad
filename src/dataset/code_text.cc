#include "dataset/code_text.h"

#include "common/text.h"

namespace kbdata::dataset {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

CodeRepairCounts& CodeRepairCounts::operator+=(const CodeRepairCounts& other) {
  values += other.values;
  from_binary += other.from_binary;
  hex_decoded += other.hex_decoded;
  hex_invalid += other.hex_invalid;
  utf8_repaired += other.utf8_repaired;
  repaired += other.repaired;
  return *this;
}

bool decode_hex_escape(std::string_view stored, std::string& out) {
  if (stored.size() < 4 || stored[0] != '\\' || stored[1] != 'x') return false;
  std::string_view digits = stored.substr(2);
  if (digits.size() % 2 != 0) return false;
  out.clear();
  out.reserve(digits.size() / 2);
  for (size_t i = 0; i < digits.size(); i += 2) {
    int hi = hex_value(digits[i]);
    int lo = hex_value(digits[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out.push_back(static_cast<char>(hi * 16 + lo));
  }
  return true;
}

std::string_view decode_code_view(std::string_view stored, bool binary_column,
                                  CodeRepairCounts& counts, std::string& scratch) {
  ++counts.values;
  if (binary_column) ++counts.from_binary;
  bool changed = false;
  std::string_view text = stored;
  if (stored.size() >= 2 && stored[0] == '\\' && stored[1] == 'x') {
    if (decode_hex_escape(stored, scratch)) {
      ++counts.hex_decoded;
      text = scratch;
      changed = true;
    } else {
      ++counts.hex_invalid;
    }
  }
  if (!is_valid_utf8(text)) {
    std::string repaired;
    append_utf8_repaired(repaired, text);
    scratch = std::move(repaired);
    text = scratch;
    ++counts.utf8_repaired;
    changed = true;
  }
  if (changed) ++counts.repaired;
  return text;
}

std::string decode_code(std::string_view stored, bool binary_column, CodeRepairCounts& counts) {
  std::string scratch;
  const std::string_view text = decode_code_view(stored, binary_column, counts, scratch);
  if (text.data() == scratch.data() && text.size() == scratch.size()) return scratch;
  return std::string(text);
}

uint64_t decoded_code_size(std::string_view stored, bool binary_column, CodeRepairCounts& counts) {
  const bool escaped = stored.size() >= 2 && stored[0] == '\\' && stored[1] == 'x';
  if (!escaped && is_valid_utf8(stored)) {
    ++counts.values;
    if (binary_column) ++counts.from_binary;
    return stored.size();
  }
  return decode_code(stored, binary_column, counts).size();
}

namespace {
constexpr int kSizeBits = 56;
constexpr uint64_t kSizeMask = (uint64_t{1} << kSizeBits) - 1;
constexpr uint64_t kHexDecoded = uint64_t{1} << 56;
constexpr uint64_t kHexInvalid = uint64_t{1} << 57;
constexpr uint64_t kUtf8Repaired = uint64_t{1} << 58;
constexpr uint64_t kRepaired = uint64_t{1} << 59;
}  // namespace

uint64_t code_size_measure(std::span<const uint8_t> bytes) {
  const std::string_view stored(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  CodeRepairCounts counts;
  const uint64_t size = decoded_code_size(stored, false, counts);
  return (size & kSizeMask) | (counts.hex_decoded > 0 ? kHexDecoded : 0) |
         (counts.hex_invalid > 0 ? kHexInvalid : 0) |
         (counts.utf8_repaired > 0 ? kUtf8Repaired : 0) | (counts.repaired > 0 ? kRepaired : 0);
}

uint64_t count_code_size_measure(uint64_t measure, bool binary_column, CodeRepairCounts& counts) {
  ++counts.values;
  if (binary_column) ++counts.from_binary;
  if ((measure & kHexDecoded) != 0) ++counts.hex_decoded;
  if ((measure & kHexInvalid) != 0) ++counts.hex_invalid;
  if ((measure & kUtf8Repaired) != 0) ++counts.utf8_repaired;
  if ((measure & kRepaired) != 0) ++counts.repaired;
  return measure & kSizeMask;
}

}  // namespace kbdata::dataset
