// The output folder of kbdata export (platform/export_folder.h), without a database: staged
// beside DIR, swapped in on commit only, entries the card would not list refused or (--force)
// removed when an earlier export listed them.
#include "platform/export_folder.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "common/error.h"
#include "common/file.h"

namespace kbdata::platform {
namespace {

namespace fs = std::filesystem;

struct Sandbox {
  Sandbox() {
    root = fs::temp_directory_path() /
           ("kbdata-export-folder-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root);
    fs::create_directories(root);
    dir = (root / "out").string();
  }
  ~Sandbox() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  fs::path root;
  std::string dir;
};

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every entry of a folder with its bytes ("<folder>" for folders) and mode.
std::map<std::string, std::pair<std::string, unsigned>> snapshot(const fs::path& dir) {
  std::map<std::string, std::pair<std::string, unsigned>> out;
  out["."] = {"", static_cast<unsigned>(fs::status(dir).permissions())};
  for (const auto& e : fs::directory_iterator(dir)) {
    const auto st = fs::symlink_status(e.path());
    out[e.path().filename().string()] = {fs::is_directory(st) ? "<folder>" : read_text(e.path()),
                                         static_cast<unsigned>(st.permissions())};
  }
  return out;
}

// Writes `files` through the folder's targets, as the export does.
void write_outputs(ExportFolder& folder, const std::map<std::string, std::string>& files) {
  for (const auto& [name, text] : files) {
    AtomicOutputFile out(folder.target(name));
    out.write(text);
    out.commit();
  }
}

const std::vector<std::string> kOutputs = {"a.parquet", "leaderboards.parquet", "README.md"};

std::string card_listing(const std::vector<std::string>& files) {
  std::string card = "---\nconfigs:\n";
  for (const std::string& f : files) card += "- config_name: x\n  data_files: \"" + f + "\"\n";
  return card + "---\n\nGPU kernel submissions, exported from its database by `kbdata export`.\n";
}

TEST(ExportFolder, ANewFolderAppearsOnlyOnCommit) {
  Sandbox box;
  {
    ExportFolder folder(box.dir, kOutputs, false, false);
    folder.stage();
    write_outputs(folder, {{"a.parquet", "A"}, {"leaderboards.parquet", "L"}, {"README.md", "R"}});
    EXPECT_FALSE(fs::exists(box.dir));
    folder.commit();
  }
  const auto got = snapshot(box.dir);
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got.at("a.parquet").first, "A");
  const mode_t mask = process_umask();
  EXPECT_EQ(got.at(".").second, 0777u & ~mask);
  EXPECT_EQ(got.at("README.md").second, 0666u & ~mask);
  // Nothing left beside it.
  EXPECT_EQ(std::distance(fs::directory_iterator(box.root), fs::directory_iterator()), 1);
}

TEST(ExportFolder, WithoutCommitNothingChanges) {
  Sandbox box;
  {
    ExportFolder folder(box.dir, kOutputs, false, false);
    folder.stage();
    write_outputs(folder, {{"a.parquet", "A"}});
  }
  EXPECT_FALSE(fs::exists(box.dir));
  EXPECT_TRUE(fs::is_empty(box.root)) << "a temporary folder was left";
  fs::create_directory(box.dir);
  write_text(fs::path(box.dir) / "a.parquet", "old");
  fs::permissions(fs::path(box.dir) / "a.parquet", fs::perms(0640));
  fs::permissions(box.dir, fs::perms(0750));
  const auto before = snapshot(box.dir);
  {
    ExportFolder folder(box.dir, kOutputs, true, false);
    folder.stage();
    write_outputs(folder, {{"a.parquet", "new"}, {"README.md", "R"}});
  }
  EXPECT_EQ(snapshot(box.dir), before);
  EXPECT_EQ(std::distance(fs::directory_iterator(box.root), fs::directory_iterator()), 1);
}

TEST(ExportFolder, ReplacingKeepsModesUnlessPrivate) {
  Sandbox box;
  fs::create_directory(box.dir);
  write_text(fs::path(box.dir) / "a.parquet", "old");
  fs::permissions(fs::path(box.dir) / "a.parquet", fs::perms(0640));
  fs::permissions(box.dir, fs::perms(0750));
  {
    ExportFolder folder(box.dir, kOutputs, false, false);
    folder.stage();
    write_outputs(folder, {{"a.parquet", "A"}, {"leaderboards.parquet", "L"}, {"README.md", "R"}});
    folder.commit();
  }
  auto got = snapshot(box.dir);
  EXPECT_EQ(got.at("a.parquet"), std::make_pair(std::string("A"), 0640u));
  EXPECT_EQ(got.at(".").second, 0750u);
  {
    ExportFolder folder(box.dir, kOutputs, true, false);
    folder.stage();
    write_outputs(folder, {{"a.parquet", "B"}, {"leaderboards.parquet", "L"}, {"README.md", "R"}});
    folder.commit();
  }
  got = snapshot(box.dir);
  EXPECT_EQ(got.at("a.parquet"), std::make_pair(std::string("B"), 0600u));
  EXPECT_EQ(got.at("README.md").second, 0600u);
  EXPECT_EQ(got.at(".").second, 0700u);
  EXPECT_EQ(got.size(), 4u);
}

TEST(ExportFolder, EntriesTheCardWouldNotList) {
  Sandbox box;
  fs::create_directory(box.dir);
  const fs::path dir = box.dir;
  write_text(dir / "README.md", card_listing({"a.parquet", "old.parquet", "leaderboards.parquet"}));
  write_text(dir / "a.parquet", "A");
  write_text(dir / "old.parquet", "O");
  // Not listed by the card: refused without --force.
  try {
    ExportFolder folder(box.dir, kOutputs, false, false);
    FAIL() << "old.parquet was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("holds old.parquet, which the new card would not list"),
              std::string::npos)
        << e.what();
  }
  // A file of the user's: refused even with --force.
  write_text(dir / "notes.txt", "mine");
  try {
    ExportFolder folder(box.dir, kOutputs, false, true);
    FAIL() << "notes.txt was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("notes.txt, which no earlier kbdata export made or "
                                         "listed"),
              std::string::npos)
        << e.what();
  }
  fs::remove(dir / "notes.txt");
  // A folder, and a folder where an output goes: never.
  fs::create_directory(dir / "sub");
  EXPECT_THROW(ExportFolder(box.dir, kOutputs, false, true), UsageError);
  fs::remove(dir / "sub");
  fs::create_directory(dir / "leaderboards.parquet");
  EXPECT_THROW(ExportFolder(box.dir, kOutputs, false, true), UsageError);
  fs::remove(dir / "leaderboards.parquet");
  // A README.md that is not a card kbdata wrote lists nothing.
  const std::string card = read_text(dir / "README.md");
  write_text(dir / "README.md",
             "my notes: data_files: \"old.parquet\"\n  data_files: \"old.parquet\"");
  EXPECT_THROW(ExportFolder(box.dir, kOutputs, false, true), UsageError);
  write_text(dir / "README.md", card);
  // --force removes the listed file, and only it.
  {
    ExportFolder folder(box.dir, kOutputs, false, true);
    EXPECT_EQ(folder.removed(), std::vector<std::string>{"old.parquet"});
    folder.stage();
    write_outputs(folder, {{"a.parquet", "A2"}, {"leaderboards.parquet", "L"}, {"README.md", "R"}});
    folder.commit();
  }
  const auto got = snapshot(box.dir);
  EXPECT_EQ(got.size(), 4u);
  EXPECT_FALSE(got.count("old.parquet"));
  EXPECT_EQ(got.at("a.parquet").first, "A2");
  EXPECT_EQ(std::distance(fs::directory_iterator(box.root), fs::directory_iterator()), 1);
}

TEST(ExportFolder, AnEntryAddedDuringTheExportFailsTheCommit) {
  Sandbox box;
  fs::create_directory(box.dir);
  write_text(fs::path(box.dir) / "a.parquet", "A");
  ExportFolder folder(box.dir, kOutputs, false, false);
  folder.stage();
  write_outputs(folder, {{"a.parquet", "A2"}, {"leaderboards.parquet", "L"}, {"README.md", "R"}});
  write_text(fs::path(box.dir) / "late.txt", "late");
  const auto before = snapshot(box.dir);
  try {
    folder.commit();
    FAIL() << "committed over late.txt";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("gained late.txt"), std::string::npos) << e.what();
  }
  EXPECT_EQ(snapshot(box.dir), before);
}

TEST(ExportFolder, ASymlinkToAFolderIsFollowedAndKept) {
  Sandbox box;
  const fs::path real = box.root / "real";
  fs::create_directory(real);
  write_text(real / "a.parquet", "A");
  fs::create_directory_symlink(real, box.dir);
  {
    ExportFolder folder(box.dir, kOutputs, false, false);
    folder.stage();
    write_outputs(folder, {{"a.parquet", "A2"}, {"leaderboards.parquet", "L"}, {"README.md", "R"}});
    folder.commit();
  }
  EXPECT_TRUE(fs::is_symlink(box.dir));
  EXPECT_EQ(read_text(real / "a.parquet"), "A2");
  EXPECT_EQ(snapshot(real).size(), 4u);
}

TEST(ExportFolder, RefusesWhatItMustNotReplace) {
  Sandbox box;
  EXPECT_THROW(ExportFolder((box.root / "missing" / "out").string(), kOutputs, false, false),
               UsageError);
  write_text(box.dir, "a file");
  EXPECT_THROW(ExportFolder(box.dir, kOutputs, false, false), UsageError);
  EXPECT_THROW(ExportFolder("", kOutputs, false, false), UsageError);
  EXPECT_THROW(ExportFolder(".", kOutputs, false, false), UsageError);
  // The working folder (and any folder holding it) is never replaced.
  const fs::path cwd = fs::current_path();
  fs::remove(box.dir);
  fs::create_directories(fs::path(box.dir) / "inner");
  fs::current_path(fs::path(box.dir) / "inner");
  EXPECT_THROW(ExportFolder(box.dir, kOutputs, false, true), UsageError);
  fs::current_path(cwd);
}

}  // namespace
}  // namespace kbdata::platform
