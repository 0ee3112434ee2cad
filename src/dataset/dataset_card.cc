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

}  // namespace kbdata::dataset
