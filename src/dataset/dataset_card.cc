#include "dataset/dataset_card.h"

#include <cstdio>

namespace kbdata::dataset {

std::string megabytes(uint64_t bytes) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f MB", static_cast<double>(bytes) / 1e6);
  return buffer;
}

std::string card_front_matter(const CardHeader& header, const std::vector<CardFile>& files) {
  std::string out = "---\nlicense: " + header.license + "\npretty_name: " + header.title + "\n";
  out += "tags:\n";
  for (const std::string& tag : header.tags) out += "- " + tag + "\n";
  if (header.is_private) out += "private: true\n";
  out += "configs:\n";
  for (const CardFile& f : files) {
    out += "- config_name: " + f.config + "\n  data_files: \"" + f.file + "\"\n";
  }
  out += "---\n\n# " + header.title + "\n\n";
  return out;
}

std::string card_file_table(const std::vector<CardFile>& files) {
  std::string out = "| config | file | rows | size |\n|---|---|---|---|\n";
  for (const CardFile& f : files) {
    out += "| " + f.config + " | " + f.file + " | " + std::to_string(f.rows) + " | " +
           megabytes(f.bytes) + " |\n";
  }
  return out;
}

std::string card_file_section(const CardFile& file) {
  return "\n## " + file.config + "\n\nFile `" + file.file + "`: " + std::to_string(file.rows) +
         " rows, " + std::to_string(file.bytes) + " bytes (" + megabytes(file.bytes) + "). ";
}

std::optional<std::string> card_license(std::string_view card) {
  auto next_line = [&](size_t& at) {
    const size_t end = card.find('\n', at);
    std::string_view line =
        card.substr(at, end == std::string_view::npos ? card.size() - at : end - at);
    at = end == std::string_view::npos ? card.size() : end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return line;
  };
  size_t at = 0;
  if (next_line(at) != "---") return std::nullopt;
  while (at < card.size()) {
    const std::string_view line = next_line(at);
    if (line == "---") break;
    if (!line.starts_with("license:")) continue;
    std::string_view value = line.substr(8);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
      value.remove_prefix(1);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
        value.back() == value.front()) {
      value = value.substr(1, value.size() - 2);
    }
    if (value.empty()) return std::nullopt;
    return std::string(value);
  }
  return std::nullopt;
}

}  // namespace kbdata::dataset
