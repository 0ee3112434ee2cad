#include "cli/configs_command.h"

#include <cstdlib>
#include <memory>
#include <set>
#include <vector>

#include "cli/progress.h"
#include "common/error.h"
#include "common/text.h"
#include "dataset/hardware.h"
#include "dataset/loader.h"
#include "dataset/registry.h"
#include "hub/remote_data.h"
#include "report/text.h"

namespace kbdata::cli {
namespace {

// An hf:// data set: its *.parquet files and their sizes from the tree, none of them read.
void list_remote(const ConfigsOptions& options, const hub::RemoteData& remote, std::FILE* out) {
  const auto& entries = remote.source->entries();
  auto name_of = [](const hub::RemoteSource::Entry& e) {
    return e.file.path.substr(e.file.path.rfind('/') + 1);
  };
  auto present = [&](const dataset::ConfigInfo& c) -> const hub::RemoteSource::Entry* {
    for (const auto& e : entries) {
      if (dataset::find_config(name_of(e)) == &c) return &e;
    }
    return nullptr;
  };
  std::vector<const hub::RemoteSource::Entry*> others;
  for (const auto& e : entries) {
    if (dataset::find_config(name_of(e)) == nullptr) others.push_back(&e);
  }
  if (options.format == "json") {
    std::string text = "{\"data\":";
    report::append_json_text(text, remote.label);
    text += ",\"configs\":[";
    bool first = true;
    for (const dataset::ConfigInfo& c : dataset::configs()) {
      const auto* e = present(c);
      text += first ? "\n" : ",\n";
      first = false;
      text += "{\"config\":";
      report::append_json_text(text, c.name);
      text += ",\"file\":";
      report::append_json_text(text, c.file);
      text += ",\"family\":";
      report::append_json_text(text, dataset::to_string(c.family));
      text += ",\"present\":";
      text += e ? "true" : "false";
      text += ",\"size\":";
      text += e ? std::to_string(e->file.size) : "null";
      text += ",\"note\":";
      report::append_json_text(text, c.note);
      text += '}';
    }
    text += "\n],\"other_files\":[";
    for (size_t i = 0; i < others.size(); ++i) {
      text += i > 0 ? ",\n" : "\n";
      text += "{\"file\":";
      report::append_json_text(text, others[i]->file.path);
      text += ",\"size\":" + std::to_string(others[i]->file.size) + "}";
    }
    text += others.empty() ? "]}\n" : "\n]}\n";
    report::write_all(out, text);
    return;
  }
  std::vector<std::vector<std::string>> rows = {
      {"config", "file", "family", "present", "bytes", "leaderboards", "note"}};
  for (const dataset::ConfigInfo& c : dataset::configs()) {
    const auto* e = present(c);
    std::string boards = c.name == "leaderboards" ? "all" : std::to_string(c.leaderboards.size());
    rows.push_back({c.name, c.file, dataset::to_string(c.family), e ? "yes" : "no",
                    e ? grouped(e->file.size) : "-", boards, c.note});
  }
  std::string text = "data: " + remote.label + " (sizes from the hub's tree; no file read)\n\n";
  text += report::format_table(rows, {false, false, false, false, true, true, false});
  if (!others.empty()) {
    std::vector<std::vector<std::string>> other_rows = {{"file", "bytes"}};
    for (const auto* e : others) other_rows.push_back({e->file.path, grouped(e->file.size)});
    text += "\nother files:\n" + report::format_table(other_rows, {false, true});
  }
  report::write_all(out, text);
}

// One line of what the files hold: a (file, leaderboard, problem, runner) with its rows.
struct Held {
  const dataset::DataFile* file;
  const dataset::FileContents::Entry* entry;
};

// The GPU of a runner as the hardware table knows it, "" when it does not.
std::string gpu_text(const std::optional<std::string>& runner) {
  if (!runner) return "";
  const std::optional<dataset::RunnerGpu> hw = dataset::gpu_of_runner(*runner);
  if (!hw) return "";
  return hw->devices == 1 ? std::string(hw->gpu)
                          : std::to_string(hw->devices) + " x " + std::string(hw->gpu);
}

// What the registry adds to a leaderboard the files hold: its reliability note, or that it does
// not know it.
std::string registry_text(const dataset::FileContents::Entry& e) {
  if (!dataset::is_registered(e.leaderboard_id, e.problem_name)) return "not in the registry";
  return std::string(dataset::note_for(e.leaderboard_id));
}

}  // namespace

void run_configs(const ConfigsOptions& options, std::FILE* out, std::FILE* err) {
  if (options.format != "table" && options.format != "json") {
    throw UsageError("configs prints table or json");
  }
  const char* env = std::getenv("KBDATA_DATA");
  const std::string where = options.data.data.value_or(env != nullptr ? env : "");
  if (hub::is_hf_url(where)) {
    const hub::RemoteData remote = hub::open_remote_data(
        where, {.log = options.data.verbose ? err : nullptr}, /*list_only=*/true);
    if (remote.source) return list_remote(options, remote, out);
    // Offline: the cached snapshot, read as a local folder below.
  }
  // Unreadable files are listed first, then refused (unless --skip-bad) once the listing is out.
  dataset::DataDir dir = open_data_dir(options.data, err, /*list_unreadable=*/true);
  auto present = [&](const dataset::ConfigInfo& c) -> const dataset::DataFile* {
    for (const auto& f : dir.files) {
      if (f.config == &c) return &f;
    }
    return nullptr;
  };
  std::vector<const dataset::DataFile*> others;
  for (const auto& f : dir.files) {
    if (f.config == nullptr) others.push_back(&f);
  }
  // What each file holds, read from its rows (the files are the truth; the registry's list of a
  // config's leaderboards is not consulted).
  std::vector<dataset::FileContents> contents;
  {
    Progress progress(err, "configs: reading what the files hold");
    dataset::ContentsOptions read;
    read.keep_errors = true;
    read.progress = [&](uint64_t rows) { progress.update(rows, "rows"); };
    contents = dataset::read_contents(dir, read);
  }
  std::vector<Held> held;
  for (const dataset::FileContents& c : contents) {
    for (const dataset::FileContents::Entry& e : c.entries) held.push_back({c.file, &e});
  }
  const auto contents_of = [&](const dataset::DataFile* f) -> const dataset::FileContents* {
    for (const dataset::FileContents& c : contents) {
      if (c.file == f) return &c;
    }
    return nullptr;
  };
  // The leaderboards a file holds, by id.
  const auto leaderboards_in = [&](const dataset::DataFile* f) {
    std::set<int64_t> ids;
    if (const dataset::FileContents* c = contents_of(f)) {
      for (const dataset::FileContents::Entry& e : c->entries) ids.insert(e.leaderboard_id);
    }
    return ids.size();
  };
  // Rows a file could not give are an error once the listing is out.
  const auto check_contents = [&] {
    for (const dataset::FileContents& c : contents) {
      if (!c.error.empty()) throw FormatError(c.error);
    }
  };

  if (options.format == "json") {
    std::string text = "{\"data\":";
    report::append_json_text(text, dir.path);
    text += ",\"configs\":[";
    bool first = true;
    for (const dataset::ConfigInfo& c : dataset::configs()) {
      const dataset::DataFile* f = present(c);
      text += first ? "\n" : ",\n";
      first = false;
      text += "{\"config\":";
      report::append_json_text(text, c.name);
      text += ",\"file\":";
      report::append_json_text(text, c.file);
      text += ",\"family\":";
      report::append_json_text(text, dataset::to_string(c.family));
      text += ",\"present\":";
      text += f ? "true" : "false";
      text += ",\"rows\":";
      text += f ? std::to_string(f->num_rows) : "null";
      text += ",\"leaderboards\":[";
      for (size_t i = 0; i < c.leaderboards.size(); ++i) {
        const auto& l = c.leaderboards[i];
        if (i > 0) text += ',';
        text += "{\"id\":" + (l.id ? std::to_string(*l.id) : std::string("null")) + ",\"name\":";
        report::append_json_text(text, l.name);
        if (!l.note.empty()) {
          text += ",\"note\":";
          report::append_json_text(text, l.note);
        }
        text += '}';
      }
      text += "],\"leaderboards_found\":";
      text += f != nullptr && c.family != dataset::SchemaFamily::LEADERBOARDS
                  ? std::to_string(leaderboards_in(f))
                  : std::string("null");
      text += ",\"note\":";
      report::append_json_text(text, c.note);
      text += '}';
    }
    text += "\n],\"contents\":[";
    for (size_t i = 0; i < held.size(); ++i) {
      const dataset::FileContents::Entry& e = *held[i].entry;
      text += i > 0 ? ",\n" : "\n";
      text += "{\"file\":";
      report::append_json_text(text, held[i].file->name);
      text += ",\"leaderboard_id\":" + std::to_string(e.leaderboard_id) + ",\"problem_name\":";
      report::append_json_text(text, e.problem_name);
      text += ",\"runner\":";
      if (e.runner) {
        report::append_json_text(text, *e.runner);
      } else {
        text += "null";
      }
      text += ",\"gpu\":";
      const std::string gpu = gpu_text(e.runner);
      if (gpu.empty()) {
        text += "null";
      } else {
        report::append_json_text(text, gpu);
      }
      text += ",\"rows\":" + std::to_string(e.rows) + ",\"registered\":";
      text += dataset::is_registered(e.leaderboard_id, e.problem_name) ? "true" : "false";
      text += ",\"note\":";
      report::append_json_text(text, std::string(dataset::note_for(e.leaderboard_id)));
      text += '}';
    }
    text += held.empty() ? "]" : "\n]";
    text += ",\"other_files\":[";
    for (size_t i = 0; i < others.size(); ++i) {
      text += i > 0 ? ",\n" : "\n";
      text += "{\"file\":";
      report::append_json_text(text, others[i]->name);
      text += ",\"family\":";
      report::append_json_text(text, dataset::to_string(others[i]->family));
      text += ",\"rows\":" + std::to_string(others[i]->num_rows) + "}";
    }
    text += others.empty() ? "]" : "\n]";
    text += ",\"skipped\":[";
    for (size_t i = 0; i < dir.skipped.size(); ++i) {
      text += i > 0 ? ",\n" : "\n";
      text += "{\"file\":";
      report::append_json_text(text, dir.skipped[i].name);
      text += ",\"reason\":";
      report::append_json_text(text, dir.skipped[i].reason);
      text += std::string(",\"unreadable\":") + (dir.skipped[i].unreadable ? "true" : "false");
      text += "}";
    }
    text += dir.skipped.empty() ? "]}\n" : "\n]}\n";
    report::write_all(out, text);
    check_unreadable(dir, options.data, err);
    check_contents();
    return;
  }

  std::vector<std::vector<std::string>> rows = {
      {"config", "file", "family", "present", "rows", "leaderboards", "note"}};
  for (const dataset::ConfigInfo& c : dataset::configs()) {
    const dataset::DataFile* f = present(c);
    // Leaderboards: those the file holds when it is there, else those the registry expects.
    std::string boards = c.name == "leaderboards" ? "all"
                         : f != nullptr           ? std::to_string(leaderboards_in(f))
                                                  : std::to_string(c.leaderboards.size());
    rows.push_back({c.name, c.file, dataset::to_string(c.family), f ? "yes" : "no",
                    f ? std::to_string(f->num_rows) : "-", boards, c.note});
  }
  std::string text = "data: " + dir.path + "\n\n";
  text += report::format_table(rows, {false, false, false, false, true, true, false});
  if (!others.empty()) {
    std::vector<std::vector<std::string>> other_rows = {{"file", "family", "rows"}};
    for (const auto* f : others) {
      other_rows.push_back({f->name, dataset::to_string(f->family), std::to_string(f->num_rows)});
    }
    text += "\nother files (not configs kbdata knows, read as their columns say):\n" +
            report::format_table(other_rows, {false, false, true});
  }
  if (!held.empty()) {
    // One line per (file, leaderboard): its runners with their rows (rows without a runner as
    // "none"), and the GPUs they run on.
    std::vector<std::vector<std::string>> held_rows = {
        {"file", "leaderboard", "problem", "runners (rows)", "gpus", "rows", "registry"}};
    for (size_t i = 0; i < held.size();) {
      const dataset::FileContents::Entry& first = *held[i].entry;
      std::string runners, none, gpus;
      uint64_t total = 0;
      size_t j = i;
      for (; j < held.size() && held[j].file == held[i].file &&
             held[j].entry->leaderboard_id == first.leaderboard_id &&
             held[j].entry->problem_name == first.problem_name;
           ++j) {
        const dataset::FileContents::Entry& e = *held[j].entry;
        total += e.rows;
        if (!e.runner) {
          none = "none " + std::to_string(e.rows);
          continue;
        }
        runners += (runners.empty() ? "" : ", ") + *e.runner + " " + std::to_string(e.rows);
        const std::string gpu = gpu_text(e.runner);
        if (!gpu.empty() && (", " + gpus + ", ").find(", " + gpu + ", ") == std::string::npos) {
          gpus += (gpus.empty() ? "" : ", ") + gpu;
        }
      }
      if (!none.empty()) runners += (runners.empty() ? "" : ", ") + none;
      held_rows.push_back({held[i].file->name, std::to_string(first.leaderboard_id),
                           first.problem_name, runners, gpus, std::to_string(total),
                           registry_text(first)});
      i = j;
    }
    text += "\nwhat the files hold (rows: flat rows, or legacy submissions):\n" +
            report::format_table(held_rows, {false, true, false, false, false, true, false});
  }
  for (const dataset::FileContents& c : contents) {
    if (!c.error.empty()) text += "\nrows not read: " + c.error + "\n";
  }
  if (!dir.skipped.empty()) {
    text += "\nnot read:\n";
    for (const dataset::SkippedFile& f : dir.skipped) {
      text += "  " + f.name + (f.unreadable ? " (unreadable)" : "") + ": " + f.reason + "\n";
    }
  }
  report::write_all(out, text);
  check_unreadable(dir, options.data, err);
  check_contents();
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
