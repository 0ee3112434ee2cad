#include "synth/dataset_card.h"

#include "common/version.h"
#include "dataset/dataset_card.h"

namespace kbdata::synth {
namespace {

std::string capitalised(std::string text) {
  if (!text.empty() && text[0] >= 'a' && text[0] <= 'z') text[0] = static_cast<char>(text[0] - 32);
  return text;
}

}  // namespace

std::string dataset_card(const std::vector<CardConfig>& configs, const SynthOptions& options) {
  std::vector<dataset::CardFile> files;
  for (const CardConfig& c : configs) {
    files.push_back({c.file.config, c.file.file, c.file.rows, c.file.bytes});
  }
  std::string out = dataset::card_front_matter({"mit",
                                                "KernelBot competition data (synthetic)",
                                                {"synthetic", "code", "gpu-kernels"},
                                                false},
                                               files);
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
  out += options.leaderboards == LeaderboardRows::PUBLISHED
             ? "leaderboards.parquet holds the first AMD competition's leaderboards only, as the "
               "published file has: the other leaderboards are known by their config files' "
               "leaderboard_id and problem_name.\n\n"
             : "leaderboards.parquet holds every leaderboard of the data set.\n\n";
  out += dataset::card_file_table(files);
  for (size_t i = 0; i < configs.size(); ++i) {
    const CardConfig& c = configs[i];
    out += dataset::card_file_section(files[i]) + capitalised(c.config->description) + ".\n";
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
