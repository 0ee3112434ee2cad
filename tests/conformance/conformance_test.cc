// Conformance of the Parquet reader with independent readers.
//
// Every valid Parquet file of the shared corpus (all but bad/ and encrypted/) and of tests/data is
// decoded leaf column by leaf column with parquet::ColumnReader::read_batch, each value rendered by
// tabular::ValueFormatter::append_json, and the rows compared with an oracle after both sides are
// normalised to one form per column type:
//
//   oracle                                   rows             files
//   expected-duckdb/<path>.json              objects          duckdb/, parquet-testing/
//   hyparquet/<name>.json                    arrays           hyparquet/
//   parquet-testing/<name>_expect.csv        CSV records      the DELTA files of parquet-testing/
//   tests/data/expected/<file>.json          objects          tests/data/ (DuckDB, as above)
//
// Files with a nested schema (a leaf below the top level or a repeated leaf) are read as records
// instead (parquet::ColumnReader::read_records, tabular::RecordAssembler) and compared top-level
// field by top-level field, walking structs, lists and maps (NestedComparer). No file is skipped:
// an UnsupportedError on a valid file is a failure (the "skipped" count of the summary stays, and
// stays 0). docs/conformance.md lists the rules and the values not compared.
//
// Environment: KBDATA_CORPUS overrides the corpus location; CI=true makes a missing corpus a
// failure; KBDATA_ALLOW_KNOWN_FAILURES=1 lets the files of kKnownFailures pass.
//
// The pieces: oracle_text.h (the oracles' spellings), column_rules.h (classes and normalisation),
// decoding.h (both sides read), file_check.h (one file against its oracle, the summary);
// column_rules_test.cc tests the rules.

#include <gtest/gtest.h>

#include "conformance/file_check.h"

namespace kbdata::conformance {
namespace {

std::optional<fs::path> corpus_root() {
  fs::path root;
  if (auto path = env("KBDATA_CORPUS"); path && !path->empty()) {
    root = *path;
  } else {
    root = fs::path(KBDATA_SOURCE_DIR) / ".." / "shared" / "parquet-corpus";
  }
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return std::nullopt;
  return fs::weakly_canonical(root, ec);
}

std::string relative_name(const fs::path& path, const fs::path& root) {
  return path.lexically_relative(root).generic_string();
}

TEST(Conformance, Corpus) {
  const auto root = corpus_root();
  if (!root) {
    const std::string where =
        env("KBDATA_CORPUS")
            .value_or((fs::path(KBDATA_SOURCE_DIR) / ".." / "shared" / "parquet-corpus").string());
    if (env_flag("CI")) FAIL() << "the corpus must be present in CI; not found at " << where;
    GTEST_SKIP() << "Parquet corpus not found at " << where << " (set KBDATA_CORPUS)";
  }

  Json manifest = Json::array();
  if (fs::exists(*root / "MANIFEST.json")) {
    manifest = Json::parse(read_file(*root / "MANIFEST.json"));
  } else {
    ADD_FAILURE() << "MANIFEST.json missing from " << root->string();
  }
  std::map<std::string, const Json*> manifest_by_file;
  for (const Json& entry : manifest) {
    if (entry.contains("file")) manifest_by_file[entry["file"].get<std::string>()] = &entry;
  }

  std::vector<FileCase> cases;
  for (auto it =
           fs::recursive_directory_iterator(*root, fs::directory_options::follow_directory_symlink);
       it != fs::recursive_directory_iterator(); ++it) {
    const std::string name = relative_name(it->path(), *root);
    if (it->is_directory() && (name == "bad" || name == "encrypted")) {
      it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file() || it->path().extension() != ".parquet") continue;
    FileCase file;
    file.name = name;
    file.path = it->path();
    const auto found = manifest_by_file.find(name);
    if (found != manifest_by_file.end()) file.manifest = found->second;
    if (name.rfind("hyparquet/", 0) == 0) {
      fs::path oracle = it->path();
      oracle.replace_extension(".json");
      if (fs::exists(oracle)) file.oracle = oracle;
      file.oracle_kind = Oracle::kHyparquet;
    } else {
      const fs::path oracle = *root / "expected-duckdb" / (name + ".json");
      if (fs::exists(oracle)) file.oracle = oracle;
      file.oracle_kind = Oracle::kDuckDb;
    }
    if (name.rfind("parquet-testing/", 0) == 0) {
      fs::path csv = it->path();
      csv.replace_filename(it->path().stem().string() + "_expect.csv");
      if (fs::exists(csv)) file.csv_oracle = csv;
    }
    cases.push_back(std::move(file));
  }
  std::sort(cases.begin(), cases.end(),
            [](const FileCase& a, const FileCase& b) { return a.name < b.name; });
  ASSERT_FALSE(cases.empty()) << "no .parquet files under " << root->string();

  Summary summary;
  for (const FileCase& file : cases) summary.outcomes.push_back(check_file(file));
  summary.report("corpus " + root->string());
}

TEST(Conformance, ProjectTestData) {
  const fs::path data = KBDATA_TEST_DATA;
  ASSERT_TRUE(fs::is_directory(data)) << data.string() << " is missing";
  std::vector<FileCase> cases;
  for (const auto& entry : fs::directory_iterator(data)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".parquet") continue;
    FileCase file;
    file.name = "tests/data/" + entry.path().filename().string();
    file.path = entry.path();
    file.oracle = data / "expected" / (entry.path().filename().string() + ".json");
    file.oracle_kind = Oracle::kDuckDb;
    if (!fs::exists(*file.oracle)) {
      ADD_FAILURE() << file.name << ": its oracle " << file.oracle->string() << " is missing";
      continue;
    }
    cases.push_back(std::move(file));
  }
  ASSERT_FALSE(cases.empty()) << "the project's own test files are missing from " << data.string();
  std::sort(cases.begin(), cases.end(),
            [](const FileCase& a, const FileCase& b) { return a.name < b.name; });
  Summary summary;
  for (const FileCase& file : cases) summary.outcomes.push_back(check_file(file));
  summary.report("tests/data");
}

}  // namespace
}  // namespace kbdata::conformance
