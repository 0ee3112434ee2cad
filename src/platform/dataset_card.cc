#include "platform/dataset_card.h"

#include <algorithm>

#include "common/version.h"
#include "dataset/dataset_card.h"
#include "dataset/registry.h"

namespace kbdata::platform {
namespace {

const char* const kCitation =
    "@inproceedings{kernelbot2025,\n"
    "  title     = {KernelBot: A Competition Platform for Writing Heterogeneous {GPU} Code},\n"
    "  author    = {Alex L Zhang and Matej Sirovatka and Erik Schultheis and Benjamin Horowitz "
    "and Mark Saroufim},\n"
    "  booktitle = {Championing Open-source DEvelopment in ML Workshop @ ICML25 (CODEML)},\n"
    "  year      = {2025},\n"
    "  url       = {https://openreview.net/forum?id=bq9U4dmuyJ}\n"
    "}\n";

}  // namespace

std::string dataset_card(const std::vector<CardConfig>& configs,
                         const std::vector<CardLeaderboard>& leaderboards,
                         const CardOptions& options) {
  std::vector<dataset::CardFile> files;
  for (const CardConfig& c : configs) files.push_back({c.name, c.file, c.rows, c.bytes});
  std::string out = dataset::card_front_matter(
      {options.license, "KernelBot competition data", {"code", "gpu-kernels"}, options.is_private},
      files);
  if (options.is_private) {
    out += "**Private export: not for publication.** Made with `--private`";
    if (!options.open_leaderboards.empty()) {
      out += "; it holds leaderboards whose deadline had not passed:";
      for (int64_t id : options.open_leaderboards) out += " " + std::to_string(id);
    }
    if (!options.non_public_leaderboards.empty()) {
      out += "; it holds leaderboards that are not public:";
      for (int64_t id : options.non_public_leaderboards) out += " " + std::to_string(id);
    }
    out += ".\n\n";
  }
  out +=
      "GPU kernel submissions from the KernelBot competition platform, exported from its "
      "database by `kbdata export` (kbdata " +
      std::string(kVersion) + ").\n\n";
  out += dataset::card_file_table(files);
  for (size_t i = 0; i < configs.size(); ++i) {
    const CardConfig& c = configs[i];
    out += dataset::card_file_section(files[i]);
    if (c.name == "leaderboards") {
      out +=
          "One row per exported leaderboard: id, name, deadline, lang, description, "
          "reference, gpu_types.\n";
      continue;
    }
    if (c.legacy) {
      out += "Legacy per-run schema: one row per run, secret runs included";
      out += c.passing_only ? ", passing runs only" : "";
      out +=
          "; `user_id` is an anonymised integer (a random permutation made for this export "
          "and not kept, so it is not stable across exports).\n";
    } else {
      out +=
          "Flat schema: one row per (leaderboard, user, code, runner) after deduplication; "
          "`score` (seconds, lower is better), `passed` and `runner` are those of the "
          "submission's best public leaderboard run on that runner, passing or not; `status` "
          "`hacked` marks a submission the organisers caught cheating (rankings must drop "
          "it).\n";
    }
    const dataset::ConfigInfo* info = dataset::find_config(c.name);
    if (info != nullptr && !info->note.empty()) out += "\n**Note:** " + info->note + ".\n";
    out += "\n| leaderboard id | name | deadline | runners | note |\n|---|---|---|---|---|\n";
    for (int64_t id : c.leaderboards) {
      auto it = std::find_if(leaderboards.begin(), leaderboards.end(),
                             [&](const CardLeaderboard& l) { return l.id == id; });
      if (it == leaderboards.end()) continue;
      std::string runners;
      for (const std::string& r : it->runners) runners += (runners.empty() ? "" : ", ") + r;
      const std::string_view note = dataset::note_for(id);
      out += "| " + std::to_string(id) + " | " + it->name + " | " + it->deadline + " | " + runners +
             " | " + (note.empty() ? "" : "**" + std::string(note) + "**") + " |\n";
    }
  }
  out += "\n## How it was made\n\n";
  out += "One read-only, repeatable-read transaction over " + options.source +
         ". Scores are seconds, lower is better. A public leaderboard run is exported only on a "
         "runner where the submission's secret run passed (and none failed); a ranking counts a "
         "row only when it has a score, passed and its status is not `hacked`. Code is decoded to "
         "UTF-8 (Postgres `\\x` hex escapes decoded, invalid bytes "
         "replaced by U+FFFD). Every file records `kbdata.version`, `kbdata.rule` and "
         "`kbdata.source` in its Parquet key-value metadata, and has a page index and row groups "
         "of at most 100,000 rows.\n";
  out += "\n## Citation\n\n```bibtex\n" + std::string(kCitation) + "```\n";
  return out;
}

}  // namespace kbdata::platform
