#include "cli/configs_command.h"

#include <memory>
#include <vector>

#include "common/error.h"
#include "common/text.h"
#include "dataset/registry.h"
#include "report/text.h"

namespace kbdata::cli {
void run_configs(const ConfigsOptions& options, std::FILE* out, std::FILE* err) {
  if (options.format != "table" && options.format != "json") {
    throw UsageError("configs prints table or json");
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
      text += "],\"note\":";
      report::append_json_text(text, c.note);
      text += '}';
    }
    text += "\n],\"other_files\":[";
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
    return;
  }

  std::vector<std::vector<std::string>> rows = {
      {"config", "file", "family", "present", "rows", "leaderboards", "note"}};
  for (const dataset::ConfigInfo& c : dataset::configs()) {
    const dataset::DataFile* f = present(c);
    std::string boards = c.name == "leaderboards" ? "all" : std::to_string(c.leaderboards.size());
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
    text += "\nother files:\n" + report::format_table(other_rows, {false, false, true});
  }
  if (!dir.skipped.empty()) {
    text += "\nnot read:\n";
    for (const dataset::SkippedFile& f : dir.skipped) {
      text += "  " + f.name + (f.unreadable ? " (unreadable)" : "") + ": " + f.reason + "\n";
    }
  }
  report::write_all(out, text);
  check_unreadable(dir, options.data, err);
}

void add_configs_command(CLI::App& app, Commands& commands) {
  auto options = std::make_shared<ConfigsOptions>();
  CLI::App* cmd = app.add_subcommand(
      "configs", "List the known configs, which files a data folder holds, and their rows");
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
