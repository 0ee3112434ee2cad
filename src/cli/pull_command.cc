#include "cli/pull_command.h"

#include <csignal>
#include <memory>

#include "cli/embedded.h"
#include "cli/progress.h"
#include "common/error.h"
#include "dataset/registry.h"
#include "hub/pull.h"

namespace kbdata::cli {

void run_pull(const PullCommandOptions& options, std::FILE* out, std::FILE* err) {
  hub::PullOptions pull;
  pull.repo = options.repo;
  pull.revision = options.revision;
  pull.includes = options.includes;
  pull.jobs = options.jobs;
  pull.cache_dir = options.cache_dir;
  for (const std::string& name : options.configs) {
    const dataset::ConfigInfo* config = dataset::find_config(name);
    if (config == nullptr) {
      std::string known;
      for (const dataset::ConfigInfo& c : dataset::configs()) {
        known += (known.empty() ? "" : ", ") + c.name;
      }
      throw UsageError("unknown config '" + name + "' (known: " + known + ")");
    }
    pull.files.push_back(config->file);
  }
  // A file size limit (ulimit -f) must fail a write with EFBIG, which is reported and cleaned up,
  // rather than kill the process with SIGXFSZ and leave a temporary behind.
  std::signal(SIGXFSZ, SIG_IGN);

  Progress progress(err, "pulling " + pull.repo);
  const hub::PullResult result = hub::pull(pull, progress.callback());
  progress.finish();

  std::fprintf(out, "%s\n", result.snapshot.c_str());
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.1f", result.seconds);
  if (result.offline) {
    std::fprintf(err, "kbdata: %s@%s: %d files from the cache (offline, nothing downloaded)\n",
                 pull.repo.c_str(), result.commit.c_str(), result.files);
    return;
  }
  std::fprintf(err,
               "kbdata: %s@%s: %d files (%d downloaded, %d already in the cache), %s bytes in "
               "%s s, %d retries\n",
               pull.repo.c_str(), result.commit.c_str(), result.files, result.downloaded,
               result.files - result.downloaded, grouped(result.bytes).c_str(), seconds,
               result.retries);
}

void add_pull_command(CLI::App& app, Commands& commands) {
  auto options = std::make_shared<PullCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "pull",
      "Download a data set's files from the Hugging Face hub into the hub's cache (shared with\n"
      "huggingface_hub and the datasets library), verified, and print the snapshot folder\n"
      "(docs/hub.md)");
  cmd->add_option("REPO", options->repo, "Data set, OWNER/NAME")->capture_default_str();
  cmd->add_option("--revision,-r", options->revision,
                  "Branch, tag or commit; resolved to a commit once")
      ->capture_default_str();
  cmd->add_option("--config", options->configs,
                  "Only this config's file (repeatable; see kbdata configs)")
      ->allow_extra_args(false);
  cmd->add_option("--include", options->includes,
                  "Only files whose path matches this glob ('*' also matches '/'; repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--jobs,-j", options->jobs, "Files downloaded at once")
      ->check(CLI::Range(1, 32))
      ->capture_default_str();
  cmd->add_option("--cache-dir", options->cache_dir,
                  "Cache folder (default: $HF_HUB_CACHE, else $HF_HOME/hub, else "
                  "~/.cache/huggingface/hub)");
  cmd->footer(
      "\nEnvironment: HF_ENDPOINT, HF_TOKEN (or HF_TOKEN_PATH, $HF_HOME/token; sent to the hub\n"
      "only), HF_HUB_OFFLINE=1 (no request: the cached snapshot or an error), HF_HOME,\n"
      "HF_HUB_CACHE.\n"
      "\nExamples:\n"
      "  kbdata pull\n"
      "  kbdata pull --config nvidia_nvfp4_submissions --config leaderboards\n"
      "  kbdata submissions --data \"$(kbdata pull --config nvidia_nvfp4_submissions)\" -p "
      "nvfp4_gemm\n"
      "\nExit status: 0 success, 1 the hub or the cache failed, 2 wrong usage.");
  commands.push_back({cmd, [options] { run_pull(*options, command_out(), command_err()); }});
}

}  // namespace kbdata::cli
