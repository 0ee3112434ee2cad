#include "query/configs.h"

#include <set>
#include <utility>

#include "dataset/hardware.h"
#include "dataset/registry.h"
#include "report/text.h"
#include "report/writer.h"

namespace kbdata::query {
namespace {

using result::Cell;
using result::Column;
using result::ColumnType;
using result::ResultTable;

// The GPU of a runner as the hardware table knows it ("2 x H100" for two devices), null when it
// does not.
Cell gpu_cell(const std::optional<std::string>& runner) {
  if (!runner) return {};
  const std::optional<dataset::RunnerGpu> hw = dataset::gpu_of_runner(*runner);
  if (!hw) return {};
  return hw->devices == 1 ? std::string(hw->gpu)
                          : std::to_string(hw->devices) + " x " + std::string(hw->gpu);
}

// The registry's leaderboards of `c` as a JSON array: [{"id":N|null,"name":"...","note":"..."}],
// the note only when there is one.
std::string registry_leaderboards(const dataset::ConfigInfo& c) {
  std::string text = "[";
  for (size_t i = 0; i < c.leaderboards.size(); ++i) {
    const dataset::LeaderboardInfo& l = c.leaderboards[i];
    if (i > 0) text += ',';
    text += "{\"id\":" + (l.id ? std::to_string(*l.id) : std::string("null")) + ",\"name\":";
    report::append_json_text(text, l.name);
    if (!l.note.empty()) {
      text += ",\"note\":";
      report::append_json_text(text, l.note);
    }
    text += '}';
  }
  return text + "]";
}

}  // namespace

const char* const kConfigsRule =
    "kbdata configs: the configs kbdata knows and what a data folder's files hold";

ConfigsAnswer configs_answer(const dataset::DataDir& dir,
                             const std::vector<dataset::FileContents>& contents) {
  ConfigsAnswer answer{.data = dir.path,
                       .configs = ResultTable({{"config", ColumnType::STRING},
                                               {"file", ColumnType::STRING},
                                               {"family", ColumnType::STRING},
                                               {"present", ColumnType::BOOL},
                                               {"rows", ColumnType::INT64},
                                               {"leaderboards", ColumnType::JSON},
                                               {"leaderboards_found", ColumnType::INT64},
                                               {"note", ColumnType::STRING}},
                                              kConfigsRule),
                       .contents = ResultTable({{"file", ColumnType::STRING},
                                                {"leaderboard_id", ColumnType::INT64},
                                                {"problem_name", ColumnType::STRING},
                                                {"runner", ColumnType::STRING},
                                                {"gpu", ColumnType::STRING},
                                                {"rows", ColumnType::INT64},
                                                {"registered", ColumnType::BOOL},
                                                {"note", ColumnType::STRING}},
                                               kConfigsRule),
                       .other_files = ResultTable({{"file", ColumnType::STRING},
                                                   {"family", ColumnType::STRING},
                                                   {"rows", ColumnType::INT64}},
                                                  kConfigsRule),
                       .skipped = ResultTable({{"file", ColumnType::STRING},
                                               {"reason", ColumnType::STRING},
                                               {"unreadable", ColumnType::BOOL}},
                                              kConfigsRule),
                       .errors = {}};
  const auto contents_of = [&](const dataset::DataFile* f) -> const dataset::FileContents* {
    for (const dataset::FileContents& c : contents) {
      if (c.file == f) return &c;
    }
    return nullptr;
  };
  for (const dataset::ConfigInfo& c : dataset::configs()) {
    const dataset::DataFile* f = nullptr;
    for (const dataset::DataFile& file : dir.files) {
      if (file.config == &c) {
        f = &file;
        break;
      }
    }
    // The leaderboards the file's rows hold (the files are the truth; the registry's list of a
    // config's leaderboards is not consulted).
    Cell found;
    if (f != nullptr && c.family != dataset::SchemaFamily::LEADERBOARDS) {
      std::set<int64_t> ids;
      if (const dataset::FileContents* held = contents_of(f)) {
        for (const dataset::FileContents::Entry& e : held->entries) ids.insert(e.leaderboard_id);
      }
      found = static_cast<int64_t>(ids.size());
    }
    answer.configs.add_row({c.name, c.file, std::string(dataset::to_string(c.family)), f != nullptr,
                            f != nullptr ? Cell{f->num_rows} : Cell{}, registry_leaderboards(c),
                            std::move(found), c.note});
  }
  for (const dataset::FileContents& c : contents) {
    for (const dataset::FileContents::Entry& e : c.entries) {
      answer.contents.add_row({c.file->name, e.leaderboard_id, e.problem_name,
                               result::optional_cell(e.runner), gpu_cell(e.runner),
                               static_cast<int64_t>(e.rows),
                               dataset::is_registered(e.leaderboard_id, e.problem_name),
                               std::string(dataset::note_for(e.leaderboard_id))});
    }
    if (!c.error.empty()) answer.errors.push_back(c.error);
  }
  for (const dataset::DataFile& f : dir.files) {
    if (f.config == nullptr) {
      answer.other_files.add_row({f.name, std::string(dataset::to_string(f.family)), f.num_rows});
    }
  }
  for (const dataset::SkippedFile& f : dir.skipped) {
    answer.skipped.add_row({f.name, f.reason, f.unreadable});
  }
  return answer;
}

RemoteConfigsAnswer remote_configs_answer(std::string label, const std::vector<RemoteFile>& files) {
  RemoteConfigsAnswer answer{
      .data = std::move(label),
      .configs = ResultTable({{"config", ColumnType::STRING},
                              {"file", ColumnType::STRING},
                              {"family", ColumnType::STRING},
                              {"present", ColumnType::BOOL},
                              {"size", ColumnType::INT64},
                              {"note", ColumnType::STRING}},
                             kConfigsRule),
      .other_files =
          ResultTable({{"file", ColumnType::STRING}, {"size", ColumnType::INT64}}, kConfigsRule)};
  const auto name_of = [](const RemoteFile& f) { return f.path.substr(f.path.rfind('/') + 1); };
  for (const dataset::ConfigInfo& c : dataset::configs()) {
    const RemoteFile* present = nullptr;
    for (const RemoteFile& f : files) {
      if (dataset::find_config(name_of(f)) == &c) {
        present = &f;
        break;
      }
    }
    answer.configs.add_row(
        {c.name, c.file, std::string(dataset::to_string(c.family)), present != nullptr,
         present != nullptr ? Cell{static_cast<int64_t>(present->size)} : Cell{}, c.note});
  }
  for (const RemoteFile& f : files) {
    if (dataset::find_config(name_of(f)) == nullptr) {
      answer.other_files.add_row({f.path, static_cast<int64_t>(f.size)});
    }
  }
  return answer;
}

std::string json_document(ConfigsAnswer& answer) {
  report::JsonDocument document;
  document.member("data", answer.data);
  document.member("configs", answer.configs);
  document.member("contents", answer.contents);
  document.member("other_files", answer.other_files);
  document.member("skipped", answer.skipped);
  return document.finish();
}

std::string json_document(RemoteConfigsAnswer& answer) {
  report::JsonDocument document;
  document.member("data", answer.data);
  document.member("configs", answer.configs);
  document.member("other_files", answer.other_files);
  return document.finish();
}

}  // namespace kbdata::query
