// What every dataset card (README.md) kbdata writes has in common, synth's and export's: the YAML
// front matter the hub reads (license, pretty_name, tags, private, and `configs:` mapping each
// config to its file), the title, the table of files, and each config's "File ..." sentence. Each
// writer adds its own sections (synth/dataset_card.h, platform/dataset_card.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kbdata::dataset {

// One file of the card, as written.
struct CardFile {
  std::string config;
  std::string file;
  int64_t rows = 0;
  uint64_t bytes = 0;
};

struct CardHeader {
  std::string license;
  std::string title;  // pretty_name, and the card's "# " heading
  std::vector<std::string> tags;
  bool is_private = false;  // `private: true`
};

// The front matter and the title:
//   ---
//   license: L
//   pretty_name: T
//   tags:
//   - TAG ...
//   [private: true]
//   configs:
//   - config_name: C
//     data_files: "F"
//   ---
//
//   # T
//
[[nodiscard]] std::string card_front_matter(const CardHeader& header,
                                            const std::vector<CardFile>& files);

// The Markdown table "| config | file | rows | size |" of `files`, sizes in MB.
[[nodiscard]] std::string card_file_table(const std::vector<CardFile>& files);

// The start of a config's section: "\n## C\n\nFile `F`: N rows, B bytes (X MB). ".
[[nodiscard]] std::string card_file_section(const CardFile& file);

// The `license:` of a card's front matter (the YAML between a first line "---" and the next line
// "---"), its value without quotes; nullopt when the card has no front matter or no license line.
[[nodiscard]] std::optional<std::string> card_license(std::string_view card);

// "12.35 MB" (10^6 bytes, two decimals).
[[nodiscard]] std::string megabytes(uint64_t bytes);

}  // namespace kbdata::dataset
