#include "synth/dataset_card.h"

#include <cstdio>

#include "common/version.h"

namespace kbdata::synth {
namespace {

std::string megabytes(uint64_t bytes) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f MB", static_cast<double>(bytes) / 1e6);
  return buffer;
}

std::string capitalised(std::string text) {
  if (!text.empty() && text[0] >= 'a' && text[0] <= 'z') text[0] = static_cast<char>(text[0] - 32);
  return text;
}

}  // namespace

std::string dataset_card(const std::vector<CardConfig>& configs, const SynthOptions& options) {
  std::string out =
      "---\nlicense: mit\npretty_name: KernelBot competition data (synthetic)\n"
      "tags:\n- synthetic\n- code\n- gpu-kernels\nconfigs:\n";
  for (const CardConfig& c : configs) {
    out += "- config_name: " + c.file.config + "\n  data_files: \"" + c.file.file + "\"\n";
  }
  out += "---\n\n# KernelBot competition data (synthetic)\n\n";
  out += "**This data is synthetic.** It was made by `" + synth_command(options) + "` (kbdata " +
         kVersion + ", seed " + std::to_string(options.seed) +
         ") and has the shapes of the published GPUMODE/kernelbot-data configs: their schemas, "
         "problems and leaderboard ids, but invented users, code and scores. Do not draw "
         "conclusions about real competitions from it.\n\n";
  out += "Layout: " + std::string(to_string(options.layout)) +
         (options.layout == Layout::PUBLISHED
              ? " (snappy, dictionary encoding, one row group per file, no page index, as the "
                "hub's files).\n\n"
              : " (kbdata's writer defaults: bounded row groups and pages, page indexes).\n\n");
  out += "| config | file | rows | size |\n|---|---|---|---|\n";
  for (const CardConfig& c : configs) {
    out += "| " + c.file.config + " | " + c.file.file + " | " + std::to_string(c.file.rows) +
           " | " + megabytes(c.file.bytes) + " |\n";
  }
  for (const CardConfig& c : configs) {
    out += "\n## " + c.file.config + "\n\n";
    out += "File `" + c.file.file + "`: " + std::to_string(c.file.rows) + " rows, " +
           std::to_string(c.file.bytes) + " bytes (" + megabytes(c.file.bytes) + "). " +
           capitalised(c.config->description) + ".\n";
    if (!c.config->note.empty()) out += "\n**Note:** " + c.config->note + ".\n";
    if (c.leaderboards.empty()) continue;
    out += "\n| leaderboard id | name | runners | note |\n|---|---|---|---|\n";
    for (const LeaderboardModel& m : c.leaderboards) {
      std::string runners;
      for (const std::string& r : m.runners) runners += (runners.empty() ? "" : ", ") + r;
      out += "| " + std::to_string(m.id) + " | " + m.name + " | " + runners + " | " +
             (m.note.empty() ? "" : "**" + m.note + "**") + " |\n";
    }
    if (c.config->name == "pmpp_v2_submissions") {
      out +=
          "\nThe PMPP practice problems' ids are not published; this synthetic set numbers "
          "them from " +
          std::to_string(kFirstPmppId) + ".\n";
    }
  }
  out +=
      "\n## How it was made\n\n`kbdata synth` models heavy-tailed user activity, users "
      "iterating on kernels (exact resubmissions and small edits that make near-duplicates), "
      "kernel source of 2-20 KB in Python with Triton, inline CUDA C++, inline HIP, CuTe DSL "
      "and plain PyTorch, failed and unscored submissions, and per-problem scores that improve "
      "over each competition, with noisier measurements on leaderboard 598 than on 697. See "
      "kbdata's docs/synth.md.\n";
  return out;
}

}  // namespace kbdata::synth
