#include "dataset/data_dir.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "common/error.h"
#include "common/output_target.h"
#include "dataset/column_types.h"
#include "parquet/file_reader.h"
#include "parquet/schema.h"

#ifndef KBDATA_SOURCE_DIR
#define KBDATA_SOURCE_DIR ""
#endif

namespace kbdata::dataset {
namespace fs = std::filesystem;

namespace {

bool has_all(const parquet::Schema& schema, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    bool found = false;
    for (const auto& field : schema.root().children) {
      if (field.name == name) found = true;
    }
    if (!found) return false;
  }
  return true;
}

}  // namespace

std::optional<SchemaFamily> detect_family(const parquet::Schema& schema) {
  if (has_all(schema, {"submission_id", "leaderboard_id", "user_id", "submission_time", "run_id",
                       "run_mode"})) {
    return SchemaFamily::LEGACY_RUNS;
  }
  if (has_all(schema,
              {"submission_id", "leaderboard_id", "problem_name", "user_id", "submission_time"})) {
    return SchemaFamily::FLAT;
  }
  if (has_all(schema, {"id", "name", "deadline"})) return SchemaFamily::LEADERBOARDS;
  return std::nullopt;
}

namespace {

// Reads the footer of `file` (opened through `dir.source`) and files it under dir.files or
// dir.skipped.
void scan_file(DataDir& dir, DataFile file) {
  try {
    auto reader = parquet::FileReader::open(dir.open(file));
    std::optional<SchemaFamily> family = detect_family(reader->schema());
    if (!family) {
      dir.skipped.push_back(
          {file.name, "not a KernelBot config: its columns match no schema", false});
      return;
    }
    file.family = *family;
    // A column of a type the model cannot read makes the file unreadable here, before any
    // command reads rows from it (docs/data-model.md, "Accepted column types").
    try {
      check_model_columns(reader->schema(), *family);
    } catch (Error& error) {
      error.locate_file(file.path);
      throw;
    }
    file.num_rows = reader->num_rows();
    file.num_row_groups = reader->num_row_groups();
  } catch (const NetworkError&) {
    throw;  // the network failed, not the file
  } catch (const Error& error) {
    dir.skipped.push_back({file.name, error.what(), true});
    return;
  }
  dir.files.push_back(std::move(file));
}

}  // namespace

DataDir scan_data_dir(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw UsageError("data folder '" + dir + "' is not a folder");
  DataDir out;
  out.path = dir;
  std::vector<std::string> names;
  fs::directory_iterator entries(dir, ec);
  for (; !ec && entries != fs::directory_iterator(); entries.increment(ec)) {
    const std::string name = entries->path().filename().string();
    // Hidden files are not configs (kbdata's own temporaries among them).
    if (entries->path().extension() == ".parquet" && name[0] != '.') names.push_back(name);
  }
  if (ec) throw IoError("cannot list the data folder '" + dir + "': " + ec.message());
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    DataFile file;
    file.name = name;
    file.path = (fs::path(dir) / name).string();
    file.config = find_config(name);
    note_input(file.path);
    scan_file(out, std::move(file));
  }
  return out;
}

DataDir scan_data_files(std::string label, const std::vector<std::string>& paths,
                        std::shared_ptr<const FileSource> source) {
  DataDir out;
  out.path = std::move(label);
  out.source = std::move(source);
  for (const std::string& path : paths) {
    DataFile file;
    file.path = path;
    file.name = path.substr(path.rfind('/') + 1);
    file.config = find_config(file.name);
    scan_file(out, std::move(file));
  }
  std::sort(out.files.begin(), out.files.end(),
            [](const DataFile& a, const DataFile& b) { return a.name < b.name; });
  std::sort(out.skipped.begin(), out.skipped.end(),
            [](const SkippedFile& a, const SkippedFile& b) { return a.name < b.name; });
  return out;
}

std::vector<std::string> bundled_sample_candidates() {
  std::vector<std::string> out;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path bin = exe.parent_path();
    out.push_back((bin / ".." / "share" / "kbdata" / "sample").lexically_normal().string());
    out.push_back((bin / ".." / "data" / "sample").lexically_normal().string());
  }
  if (std::string_view(KBDATA_SOURCE_DIR).size() > 0) {
    out.push_back((fs::path(KBDATA_SOURCE_DIR) / "data" / "sample").lexically_normal().string());
  }
  return out;
}

DataDirChoice choose_data_dir(const std::optional<std::string>& flag, const char* env) {
  if (flag) return {*flag, false};
  if (env != nullptr && *env != '\0') return {env, false};
  std::string tried;
  for (const std::string& candidate : bundled_sample_candidates()) {
    std::error_code ec;
    if (fs::is_directory(candidate, ec)) return {candidate, true};
    if (!tried.empty()) tried += ", ";
    tried += candidate;
  }
  throw UsageError("no ", OptionName("data"),
                   " folder, no KBDATA_DATA, and no bundled sample (looked in ", tried, ")");
}

}  // namespace kbdata::dataset
