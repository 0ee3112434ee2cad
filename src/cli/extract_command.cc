#include "cli/extract_command.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>
#include <vector>

#include "analysis/extract_selection.h"
#include "cli/embedded.h"
#include "cli/filter_checks.h"
#include "cli/flag_exclusion.h"
#include "cli/progress.h"
#include "cli/summary_text.h"
#include "cli/threads.h"
#include "common/error.h"
#include "common/file.h"
#include "common/output_target.h"
#include "common/sha256.h"
#include "common/text.h"
#include "dataset/loader.h"
#include "query/extract.h"
#include "query/techniques.h"
#include "report/text.h"
#include "report/writer.h"
#include "result/table.h"
#include "techniques/techniques.h"

namespace kbdata::cli {
namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxComponent = 80;

void write_whole_file(const fs::path& path, const std::string& bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) throw IoError("cannot create " + path.string() + ": " + std::strerror(errno));
  const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  const int saved = errno;
  if (std::fclose(f) != 0 || !ok) {
    throw IoError("cannot write " + path.string() + ": " + std::strerror(ok ? errno : saved));
  }
}

// A temporary folder beside the extract (named by temporary_template(), locked while it lives so
// that a later run can tell a stale one), removed unless released, also by SIGINT, SIGTERM and
// SIGHUP (register_temporary_folder).
class TemporaryFolder {
 public:
  explicit TemporaryFolder(const fs::path& target) {
    remove_stale_temporaries(target.string());
    std::string pattern = temporary_template(target.string());
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw IoError("cannot create a temporary folder beside " + target.string() + ": " +
                    std::strerror(errno));
    }
    path_ = pattern;
    signal_registration_ = register_temporary_folder(path_.string());
    lock_fd_ = ::open(path_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (lock_fd_ >= 0) lock_temporary(lock_fd_);
  }
  ~TemporaryFolder() {
    if (lock_fd_ >= 0) ::close(lock_fd_);
    if (path_.empty()) return;
    std::error_code ec;
    fs::remove_all(path_, ec);
    unregister_temporary_folder(signal_registration_);
  }
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;

  [[nodiscard]] const fs::path& path() const { return path_; }
  // Before the folder is renamed into place: from here on it is no temporary.
  void release() {
    unregister_temporary_folder(signal_registration_);
    signal_registration_ = -1;
    path_.clear();
  }

 private:
  fs::path path_;
  int lock_fd_ = -1;
  int signal_registration_ = -1;
};

// The files `manifest` (the text of an extract's manifest.jsonl) lists, or nullopt when it is not
// one kbdata wrote (a line that is not an object with a string "path" and a "sha256").
std::optional<std::set<std::string>> manifest_paths(const std::string& manifest) {
  std::set<std::string> paths;
  size_t start = 0;
  while (start < manifest.size()) {
    size_t end = manifest.find('\n', start);
    if (end == std::string::npos) end = manifest.size();
    const nlohmann::json line = nlohmann::json::parse(
        manifest.begin() + static_cast<std::ptrdiff_t>(start),
        manifest.begin() + static_cast<std::ptrdiff_t>(end), nullptr, /*allow_exceptions=*/false);
    if (!line.is_object() || !line.contains("path") || !line["path"].is_string() ||
        !line.contains("sha256")) {
      return std::nullopt;
    }
    paths.insert(line["path"].get<std::string>());
    start = end + 1;
  }
  return paths;
}

// Throws UsageError unless `target` is a folder that kbdata extract made: a manifest.jsonl it
// wrote, and nothing else than the files that manifest lists and their folders. Only such a
// folder may be replaced by --force (it holds nothing the user would lose).
void require_made_by_extract(const fs::path& target, const std::string& shown) {
  const std::string refusal = "--out " + shown + " is not empty and was not made by kbdata extract";
  std::error_code ec;
  const fs::path manifest = target / "manifest.jsonl";
  if (!fs::is_regular_file(fs::symlink_status(manifest, ec))) {
    throw UsageError(refusal + " (it has no manifest.jsonl); --force replaces only such a folder");
  }
  std::ifstream in(manifest, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::optional<std::set<std::string>> listed = manifest_paths(text);
  if (!listed) {
    throw UsageError(refusal +
                     " (its manifest.jsonl is not one kbdata wrote); --force replaces "
                     "only such a folder");
  }
  for (auto it = fs::recursive_directory_iterator(target, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const fs::file_status st = it->symlink_status(ec);
    const std::string relative = fs::relative(it->path(), target, ec).generic_string();
    if (fs::is_directory(st) || relative == "manifest.jsonl") continue;
    if (!fs::is_regular_file(st) || listed->count(relative) == 0) {
      throw UsageError("--out " + shown + " holds " + relative +
                       ", which its manifest.jsonl does not list; --force replaces only a folder "
                       "kbdata extract made, with nothing added");
    }
  }
  if (ec) throw IoError("cannot list --out " + shown + ": " + ec.message());
}

std::string entry_path(const analysis::ExtractEntry& e, const std::string& extension) {
  const dataset::Submission& s = e.row;
  const std::string problem =
      s.problem_name.empty() ? "leaderboard-" + std::to_string(s.leaderboard_id) : s.problem_name;
  const std::string runner = s.runner ? *s.runner : "no-runner";
  std::string label;
  if (e.rank) {
    std::string r = std::to_string(*e.rank);
    label = "rank" + std::string(r.size() < 4 ? 4 - r.size() : 0, '0') + r;
  } else {
    label = "user-" + s.user_id;
  }
  return safe_path_component(problem) + "/" + safe_path_component(runner) + "/" +
         safe_path_component(label + "_" + std::to_string(s.submission_id)) + extension;
}

// Puts the finished folder at `target`: an empty or (with --force) a kbdata-made folder there is
// replaced; the previous folder is moved aside first and put back if the rename fails.
void move_into_place(TemporaryFolder& folder, const fs::path& target) {
  std::error_code ec;
  // mkdtemp made it 0700; the folder gets the umask's mode like any folder the user makes.
  ::chmod(folder.path().c_str(), 0777 & ~process_umask());
  fs::path old;
  if (fs::exists(fs::symlink_status(target, ec))) {
    std::string aside = temporary_template(target.string());
    if (::mkdtemp(aside.data()) == nullptr) {
      throw IoError("cannot move " + target.string() + " aside: " + std::strerror(errno));
    }
    old = aside;
    fs::rename(target, old, ec);  // over the empty folder mkdtemp made
    if (ec) throw IoError("cannot move " + target.string() + " aside: " + ec.message());
  }
  const fs::path built = folder.path();
  folder.release();  // a signal now leaves either the finished folder or, at worst, it beside
  fs::rename(built, target, ec);
  if (ec) {
    const std::string reason = ec.message();
    fs::remove_all(built, ec);
    if (!old.empty()) fs::rename(old, target, ec);  // put the previous folder back
    throw IoError("cannot rename the extract into " + target.string() + ": " + reason);
  }
  if (!old.empty()) fs::remove_all(old, ec);
}

// The options' checks that read no data: exactly one mode, the problem, --dedup, and --out a
// folder to make in a folder that exists and can be written. Returns --out, normalised.
fs::path check_extract_options(const ExtractOptions& options) {
  const int modes = (options.top ? 1 : 0) + (options.user_id ? 1 : 0) +
                    (options.user_name ? 1 : 0) + (options.all ? 1 : 0);
  if (modes != 1) {
    throw UsageError("extract needs exactly one of --top K, --user-id U, --user-name U, --all");
  }
  if (!options.problem) throw UsageError("extract needs --problem NAME");
  if (options.top && *options.top <= 0) throw UsageError("--top must be 1 or more");
  if (options.dedup && *options.dedup != "exact") {
    throw UsageError("--dedup takes exact (one file per distinct code)");
  }
  if (options.out.empty()) throw UsageError("extract needs --out DIR");
  const fs::path target = fs::path(options.out).lexically_normal();
  if (target.filename().empty() || target.filename() == "." || target.filename() == "..") {
    throw UsageError("--out must name a folder, not " + options.out);
  }
  std::error_code ec;
  const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
  if (!fs::is_directory(parent, ec)) {
    throw UsageError("--out " + options.out + ": its folder " + parent.string() +
                     " does not exist");
  }
  if (::access(parent.c_str(), W_OK | X_OK) != 0) {
    throw IoError("--out " + options.out + ": cannot write into " + parent.string() + ": " +
                  std::strerror(errno));
  }
  return target;
}

// --out may be missing or empty; one that holds files only with --force, and only when kbdata
// extract made it. It may not be, or hold, the data (or the working folder): --force would delete
// it.
void check_out_folder(const ExtractOptions& options, const fs::path& target) {
  refuse_folder_holding_inputs(target.string(), "out");
  std::error_code ec;
  const fs::file_status out_status = fs::symlink_status(target, ec);
  if (!fs::exists(out_status)) return;
  if (!fs::is_directory(out_status)) {
    throw UsageError("--out " + options.out + " exists and is not a folder");
  }
  if (!fs::is_empty(target, ec)) {
    if (!options.force) {
      throw UsageError("--out " + options.out +
                       " exists and is not empty; --force replaces it if kbdata extract made it");
    }
    require_made_by_extract(target, options.out);
  }
}

// Pass 1: metadata only, to choose the rows.
std::vector<analysis::ExtractEntry> choose_rows(const dataset::DataDir& dir,
                                                const dataset::LoadOptions& load,
                                                const analysis::ExtractRequest& request,
                                                const std::string& problem, std::FILE* err,
                                                dataset::LoadStats& stats) {
  std::vector<dataset::Submission> rows;
  {
    Progress progress(err, "extract: choosing from " + problem);
    dataset::load_dir(
        dir, load,
        [&](dataset::Submission&& s) {
          rows.push_back(std::move(s));
          progress.update(rows.size(), "rows");
        },
        stats);
  }
  return analysis::select_for_extract(rows, request);
}

// What pass 2 wrote: per entry, its file (none for a row without code).
struct WrittenCode {
  std::vector<std::optional<query::ExtractedFile>> files;
  uint64_t count = 0;
  uint64_t bytes = 0;
};

// Pass 2: the chosen rows' code, written into `folder` as it streams past.
WrittenCode write_code(const dataset::DataDir& dir, dataset::LoadOptions load,
                       const std::vector<analysis::ExtractEntry>& entries,
                       const std::string& problem, const fs::path& folder, std::FILE* err,
                       dataset::LoadStats& stats) {
  std::map<std::pair<int64_t, std::optional<std::string>>, size_t> wanted;
  for (size_t i = 0; i < entries.size(); ++i) {
    wanted.emplace(std::make_pair(entries[i].row.submission_id, entries[i].row.runner), i);
  }
  WrittenCode out;
  out.files.resize(entries.size());
  std::set<std::string> paths;
  load.with_code = true;
  Progress progress(err, "extract: writing " + problem);
  dataset::load_dir(
      dir, load,
      [&](dataset::Submission&& s) {
        auto it = wanted.find({s.submission_id, s.runner});
        // Empty code is no code: no 0-byte file, and counted among the skipped.
        if (it == wanted.end() || out.files[it->second] || !s.code || s.code->empty()) return;
        const analysis::ExtractEntry& e = entries[it->second];
        // What the code uses (docs/techniques.md) is the manifest's and decides the
        // extension.
        query::ExtractedFile w;
        w.techniques = query::classify_row(s, *s.code);
        const std::string extension(techniques::file_extension(
            techniques::code_file(w.techniques, *s.code, s.file_name.value_or(""))));
        w.path = entry_path(e, extension);
        // Distinct rows can meet once names are made safe (runners "B/200" and "B_200").
        if (!paths.insert(w.path).second) {
          w.path = entry_path(e, "_" + std::to_string(it->second) + extension);
          paths.insert(w.path);
        }
        const fs::path file = folder / w.path;
        std::error_code dir_error;
        fs::create_directories(file.parent_path(), dir_error);
        if (dir_error) {
          throw IoError("cannot create " + file.parent_path().string() + ": " +
                        dir_error.message());
        }
        write_whole_file(file, *s.code);
        w.bytes = s.code->size();
        w.sha256 = sha256_hex(*s.code);
        out.files[it->second] = std::move(w);
        ++out.count;
        out.bytes += s.code->size();
        progress.update(out.count, "files", entries.size());
      },
      stats);
  return out;
}

// The manifest, a row per file written; returns the duplicates --dedup dropped.
uint64_t write_manifest(const fs::path& folder, const std::vector<analysis::ExtractEntry>& entries,
                        const WrittenCode& written, bool dedup_exact) {
  result::ResultTable manifest(query::extract_manifest_columns(dedup_exact),
                               query::kExtractManifestRule);
  uint64_t duplicates = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    duplicates += entries[i].duplicates_dropped;
    if (written.files[i]) {
      query::add_manifest_row(manifest, entries[i], *written.files[i], dedup_exact);
    }
  }
  write_whole_file(folder / "manifest.jsonl", report::table_text(manifest, report::Format::JSONL));
  return duplicates;
}

// The summary's line on stderr, and the leaderboards' reliability notes, once each, as every
// command shows them.
void print_extract_summary(result::ResultTable& summary, std::FILE* err) {
  const SummaryRow row(summary);
  std::string line = "kbdata: extract: " + std::to_string(*row.count("files")) + " file(s), " +
                     std::to_string(*row.count("bytes")) + " bytes of code, " +
                     std::to_string(*row.count("skipped")) + " skipped (no code)";
  if (const std::optional<int64_t> dropped = row.count("duplicates_dropped")) {
    line += ", " + std::to_string(*dropped) + " duplicate(s) dropped";
  }
  report::write_all(err, line + " -> " + *row.text("folder") + "\n");
  report::Notes notes(report::Format::CSV, err);
  for (const result::ResultTable::Leaderboard& l : summary.leaderboards()) {
    notes.seen(l.id, l.problem_name);
  }
}

}  // namespace

std::string safe_path_component(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (out.size() == kMaxComponent) break;
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '.' || c == '_' || c == '-';
    out += keep ? c : '_';
  }
  if (out.empty()) return "_";
  if (out[0] == '.') out[0] = '_';
  return out;
}

void run_extract(const ExtractOptions& options, std::FILE* err) {
  const fs::path target = check_extract_options(options);
  analysis::ExtractRequest request;
  request.top = options.top.value_or(0);
  request.dedup_exact = options.dedup.has_value();

  dataset::LoadOptions load;
  load.threads = command_threads(options.data.threads);
  load.filter.problem = options.problem;
  load.filter.user_id = options.user_id;
  load.filter.user_name = options.user_name;
  load.filter.runner = options.runner;
  if (request.top > 0) {  // a ranking sees only scored, passed rows: push that down
    load.filter.scored_only = true;
    load.filter.passed_only = true;
  }

  const dataset::DataDir dir = open_data_dir(options.data, err);
  resolve_filter(dir, load.filter);
  check_out_folder(options, target);
  exclude_flagged(options.exclude_flagged, dir, load, err);

  dataset::LoadStats stats;
  const std::vector<analysis::ExtractEntry> entries =
      choose_rows(dir, load, request, *options.problem, err, stats);
  if (entries.empty()) {
    report_load(options.data, stats, err);
    report::write_all(err, "kbdata: extract: nothing selected (no " +
                               std::string(request.top > 0 ? "qualifying " : "") +
                               "submission of " + *options.problem + " matches the options" +
                               why_empty(dir, load.filter) + "); " + options.out +
                               " was not created\n");
    return;
  }

  TemporaryFolder folder(target);
  const WrittenCode written =
      write_code(dir, load, entries, *options.problem, folder.path(), err, stats);
  report_load(options.data, stats, err);
  const uint64_t duplicates = write_manifest(folder.path(), entries, written, request.dedup_exact);
  move_into_place(folder, target);

  result::ResultTable summary = query::extract_summary({.files = written.count,
                                                        .bytes = written.bytes,
                                                        .skipped = entries.size() - written.count,
                                                        .dedup = request.dedup_exact,
                                                        .duplicates_dropped = duplicates,
                                                        .folder = target.string()},
                                                       entries);
  if (hand_over(summary)) return;
  print_extract_summary(summary, err);
}

void add_extract_command(CLI::App& app, Commands& commands) {
  auto options = std::make_shared<ExtractOptions>();
  CLI::App* cmd = app.add_subcommand(
      "extract",
      "Write chosen submissions' code of a problem to files (.py, .cu, .hip, ...) with a "
      "manifest.jsonl of their metadata and sha256");
  add_data_options(*cmd, options->data);
  cmd->add_option("--problem,-p", options->problem, "Problem (leaderboard) name (required)");
  cmd->add_option("--top", options->top,
                  "The best qualifying submission of each of the top K users, per runner");
  cmd->add_option("--user-id", options->user_id, "Every submission of this user (platform id)");
  cmd->add_option("--user-name", options->user_name, "Every submission of this user, by name");
  cmd->add_flag("--all", options->all, "Every submission of the problem");
  cmd->add_option("--runner", options->runner, "Only this runner (GPU), e.g. B200");
  cmd->add_option("--dedup", options->dedup,
                  "exact: one file per distinct code (code_id), keeping the best row");
  cmd->add_option("--out,-o", options->out,
                  "Folder to create (must not exist or be empty, unless --force)");
  cmd->add_flag("--force", options->force, "Replace --out if it exists and is not empty");
  add_exclude_flagged_option(*cmd, options->exclude_flagged);
  cmd->footer(
      "\nFiles: DIR/<problem>/<runner>/rank0001_<submission_id>.<ext> (--top) or\n"
      "DIR/<problem>/<runner>/user-<user_id>_<submission_id>.<ext>, names made safe; the\n"
      "extension follows the code's language (docs/analyses.md). DIR/manifest.jsonl has one\n"
      "object per file. DIR is built beside itself and renamed into place when complete.\n"
      "\nExamples:\n"
      "  kbdata extract -p nvfp4_gemm --top 10 --out top10\n"
      "  kbdata extract -p amd-fp8-mm --all --dedup exact --out fp8\n"
      "  kbdata extract -p trimul --user-name saton --runner H100 --out saton\n"
      "  kbdata extract -p nvfp4_gemm --top 10 --exclude-flagged --out top10-clean\n"
      "\nExit status: 0 success, 1 the input could not be read or DIR not written, 2 wrong usage.");
  commands.push_back({cmd, [options] { run_extract(*options, command_err()); }});
}

}  // namespace kbdata::cli
