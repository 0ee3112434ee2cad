#include "cli/configs_command.h"

#include <cstdlib>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/embedded.h"
#include "cli/progress.h"
#include "cli/threads.h"
#include "common/error.h"
#include "common/text.h"
#include "dataset/loader.h"
#include "dataset/registry.h"
#include "hub/remote_data.h"
#include "query/configs.h"
#include "report/text.h"
#include "result/table.h"

namespace kbdata::cli {
namespace {

using result::Cell;

// A table's rows as cells (the configs' tables are small).
std::vector<std::vector<Cell>> rows_of(result::ResultTable& table) {
  std::vector<std::vector<Cell>> rows;
  table.visit([](const std::string&) {},
              [&](std::vector<Cell>&& cells, const result::ResultTable::Leaderboard*) {
                rows.push_back(std::move(cells));
              });
  return rows;
}

const std::string& text_of(const Cell& cell) { return std::get<std::string>(cell); }
bool is_null(const Cell& cell) { return std::holds_alternative<std::monostate>(cell); }

// The registry's count of a config's leaderboards ("all" for the leaderboards config).
std::string registry_boards(const std::string& config) {
  const dataset::ConfigInfo* c = dataset::find_config(config);
  if (config == "leaderboards") return "all";
  return std::to_string(c != nullptr ? c->leaderboards.size() : 0);
}

// An hf:// data set for people: its *.parquet files and their sizes from the tree.
std::string remote_table_text(query::RemoteConfigsAnswer& answer) {
  std::vector<std::vector<std::string>> rows = {
      {"config", "file", "family", "present", "bytes", "leaderboards", "note"}};
  for (const std::vector<Cell>& r : rows_of(answer.configs)) {
    const bool present = std::get<bool>(r[3]);
    rows.push_back({text_of(r[0]), text_of(r[1]), text_of(r[2]), present ? "yes" : "no",
                    present ? grouped(std::get<int64_t>(r[4])) : "-",
                    registry_boards(text_of(r[0])), text_of(r[5])});
  }
  std::string text = "data: " + answer.data + " (sizes from the hub's tree; no file read)\n\n";
  text += report::format_table(rows, {false, false, false, false, true, true, false});
  if (answer.other_files.rows() > 0) {
    std::vector<std::vector<std::string>> other_rows = {{"file", "bytes"}};
    for (const std::vector<Cell>& r : rows_of(answer.other_files)) {
      other_rows.push_back({text_of(r[0]), grouped(std::get<int64_t>(r[1]))});
    }
    text += "\nother files:\n" + report::format_table(other_rows, {false, true});
  }
  return text;
}

// A data folder's answer for people: the configs, the other files, one line per (file,
// leaderboard) with its runners and their rows (rows without a runner as "none") and the GPUs they
// run on, the rows not read and the files not read.
std::string table_text(query::ConfigsAnswer& answer) {
  std::vector<std::vector<std::string>> rows = {
      {"config", "file", "family", "present", "rows", "leaderboards", "note"}};
  for (const std::vector<Cell>& r : rows_of(answer.configs)) {
    const bool present = std::get<bool>(r[3]);
    const std::string& config = text_of(r[0]);
    // Leaderboards: those the file holds when it is there, else those the registry expects.
    std::string boards = config == "leaderboards" ? "all"
                         : present ? std::to_string(is_null(r[6]) ? 0 : std::get<int64_t>(r[6]))
                                   : registry_boards(config);
    rows.push_back({config, text_of(r[1]), text_of(r[2]), present ? "yes" : "no",
                    present ? std::to_string(std::get<int64_t>(r[4])) : "-", boards,
                    text_of(r[7])});
  }
  std::string text = "data: " + answer.data + "\n\n";
  text += report::format_table(rows, {false, false, false, false, true, true, false});
  if (answer.other_files.rows() > 0) {
    std::vector<std::vector<std::string>> other_rows = {{"file", "family", "rows"}};
    for (const std::vector<Cell>& r : rows_of(answer.other_files)) {
      other_rows.push_back({text_of(r[0]), text_of(r[1]), std::to_string(std::get<int64_t>(r[2]))});
    }
    text += "\nother files (not configs kbdata knows, read as their columns say):\n" +
            report::format_table(other_rows, {false, false, true});
  }
  const std::vector<std::vector<Cell>> held = rows_of(answer.contents);
  if (!held.empty()) {
    std::vector<std::vector<std::string>> held_rows = {
        {"file", "leaderboard", "problem", "runners (rows)", "gpus", "rows", "registry"}};
    for (size_t i = 0; i < held.size();) {
      const std::vector<Cell>& first = held[i];
      std::string runners, none, gpus;
      int64_t total = 0;
      size_t j = i;
      for (; j < held.size() && text_of(held[j][0]) == text_of(first[0]) &&
             std::get<int64_t>(held[j][1]) == std::get<int64_t>(first[1]) &&
             text_of(held[j][2]) == text_of(first[2]);
           ++j) {
        const std::vector<Cell>& e = held[j];
        const int64_t n = std::get<int64_t>(e[5]);
        total += n;
        if (is_null(e[3])) {
          none = "none " + std::to_string(n);
          continue;
        }
        runners += (runners.empty() ? "" : ", ") + text_of(e[3]) + " " + std::to_string(n);
        if (is_null(e[4])) continue;
        const std::string& gpu = text_of(e[4]);
        if ((", " + gpus + ", ").find(", " + gpu + ", ") == std::string::npos) {
          gpus += (gpus.empty() ? "" : ", ") + gpu;
        }
      }
      if (!none.empty()) runners += (runners.empty() ? "" : ", ") + none;
      held_rows.push_back({text_of(first[0]), std::to_string(std::get<int64_t>(first[1])),
                           text_of(first[2]), runners, gpus, std::to_string(total),
                           std::get<bool>(first[6]) ? text_of(first[7]) : "not in the registry"});
      i = j;
    }
    text += "\nwhat the files hold (rows: flat rows, or legacy submissions):\n" +
            report::format_table(held_rows, {false, true, false, false, false, true, false});
  }
  for (const std::string& error : answer.errors) text += "\nrows not read: " + error + "\n";
  const std::vector<std::vector<Cell>> skipped = rows_of(answer.skipped);
  if (!skipped.empty()) {
    text += "\nnot read:\n";
    for (const std::vector<Cell>& f : skipped) {
      text += "  " + text_of(f[0]) + (std::get<bool>(f[2]) ? " (unreadable)" : "") + ": " +
              text_of(f[1]) + "\n";
    }
  }
  return text;
}

}  // namespace

namespace {

// The configs query's answer over `data`: an hf:// data set's tree (no file read), or a folder
// (its unreadable files listed, not refused: check_unreadable says so once the listing is out).
struct Listing {
  std::optional<query::RemoteConfigsAnswer> remote;
  dataset::DataDir dir;
  std::optional<query::ConfigsAnswer> local;
};

Listing listing(const DataOptions& data, std::FILE* err) {
  Listing listed;
  const char* env = std::getenv("KBDATA_DATA");
  const std::string where = data.data.value_or(env != nullptr ? env : "");
  if (hub::is_hf_url(where)) {
    const hub::RemoteData remote =
        hub::open_remote_data(where, {.log = data.verbose ? err : nullptr}, /*list_only=*/true);
    if (remote.source) {
      std::vector<query::RemoteFile> files;
      for (const hub::RemoteSource::Entry& e : remote.source->entries()) {
        files.push_back({e.file.path, e.file.size});
      }
      listed.remote = query::remote_configs_answer(remote.label, files);
      return listed;
    }
    // Offline: the cached snapshot, read as a local folder below.
  }
  listed.dir = open_data_dir(data, err, /*list_unreadable=*/true);
  // What each file holds, read from its rows.
  std::vector<dataset::FileContents> contents;
  {
    Progress progress(err, "configs: reading what the files hold");
    dataset::ContentsOptions read;
    read.keep_errors = true;
    read.threads = command_threads(data.threads);
    read.progress = progress.callback();
    contents = dataset::read_contents(listed.dir, read);
  }
  listed.local = query::configs_answer(listed.dir, contents);
  return listed;
}

// Unreadable files (unless --skip-bad) and rows a file could not give are errors once the
// listing is out.
void check_listing(const Listing& listed, const DataOptions& data, std::FILE* err) {
  if (!listed.local) return;
  check_unreadable(listed.dir, data, err);
  if (!listed.local->errors.empty()) throw FormatError(listed.local->errors.front());
}

}  // namespace

void run_configs(const ConfigsOptions& options, std::FILE* out, std::FILE* err) {
  if (options.format != "table" && options.format != "json") {
    throw UsageError("configs prints table or json");
  }
  Listing listed = listing(options.data, err);
  if (const EmbeddedRun* run = embedded_run(); run != nullptr) {
    // Embedded (the Python module): one of the answer's tables, handed over.
    check_listing(listed, options.data, err);
    const std::string part = run->part.empty() ? "configs" : run->part;
    result::ResultTable* table = nullptr;
    if (listed.remote) {
      if (part == "configs") table = &listed.remote->configs;
      if (part == "other_files") table = &listed.remote->other_files;
      if (table == nullptr && (part == "contents" || part == "skipped")) {
        throw UsageError(
            "an hf:// data set is listed from the hub's tree, its files unread: "
            "pull it first (kbdata pull) to see what they hold");
      }
    } else {
      if (part == "configs") table = &listed.local->configs;
      if (part == "contents") table = &listed.local->contents;
      if (part == "other_files") table = &listed.local->other_files;
      if (part == "skipped") table = &listed.local->skipped;
    }
    if (table == nullptr) throw std::logic_error("configs has no table '" + part + "'");
    (void)hand_over(*table);
    return;
  }
  const bool json = options.format == "json";
  if (listed.remote) {
    report::write_all(
        out, json ? query::json_document(*listed.remote) : remote_table_text(*listed.remote));
  } else {
    report::write_all(out, json ? query::json_document(*listed.local) : table_text(*listed.local));
  }
  check_listing(listed, options.data, err);
}

std::string configs_json_document(const DataOptions& data, std::FILE* err) {
  Listing listed = listing(data, err);
  std::string document =
      listed.remote ? query::json_document(*listed.remote) : query::json_document(*listed.local);
  check_listing(listed, data, err);
  return document;
}

void add_configs_command(CLI::App& app, Commands& commands) {
  auto options = std::make_shared<ConfigsOptions>();
  CLI::App* cmd = app.add_subcommand(
      "configs",
      "List the known configs, which files a data folder holds, and their rows (of an\n"
      "hf:// data set: their sizes from the hub's tree, no file read)");
  add_data_options(*cmd, options->data);
  cmd->footer(
      "\nExamples:\n  kbdata configs --data ~/kernelbot\n  kbdata configs --format json\n"
      "\nExit status: 0 success, 1 unreadable input, 2 wrong usage.");
  cmd->add_option("--format,-f", options->format, "Output format")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  commands.push_back({cmd, [options] { run_configs(*options, stdout, stderr); }});
}

}  // namespace kbdata::cli
