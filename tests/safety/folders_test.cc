// Safety of folder outputs (docs/cli.md, "Safety"): what `extract --out` (with or without
// --force) and `synth --out` may replace. Each case checks the exit status, the one-line message
// and that every pre-existing file is unchanged.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <string>

#include "safety/sandbox.h"
#include "support/cli_expect.h"

namespace kbdata::testing {
namespace {

std::string extract_args(const std::string& data, const std::string& out) {
  return "extract --data " + shell_quote(data) + " -p trimul --all --out " + shell_quote(out);
}

// Item 2: --force never deletes the data folder, a parent of it, or the working folder.
TEST(ExtractForce, NeverReplacesTheDataItsParentsOrTheWorkingFolder) {
  Sandbox box;
  const std::string data = box.copy_sample();
  const Snapshot before = box.snapshot();
  for (const std::string& out : {data, box.root().string(), data + "/../data"}) {
    SCOPED_TRACE(out);
    const Result r = run_limited(extract_args(data, out) + " --force", 60);
    expect_one_line_error(r, 2, "holds an input of this command");
  }
  // The working folder by absolute path, even when kbdata made it.
  const std::string made = box.path("made");
  ASSERT_EQ(run_limited(extract_args(data, made), 60).exit_code, 0);
  const Snapshot with_extract = box.snapshot();
  const Result r =
      run_limited(extract_args(data, made) + " --force", 60, "cd " + shell_quote(made) + " &&");
  expect_one_line_error(r, 2, "working folder");
  expect_same_tree(with_extract, box.snapshot());
  expect_unchanged(before, box.snapshot());
}

// Item 2: --force replaces only a folder kbdata extract made, with nothing added to it.
TEST(ExtractForce, ReplacesOnlyWhatExtractMade) {
  Sandbox box;
  const std::string data = box.copy_sample();
  const std::string mine = box.folder("mine");
  box.write("mine/thesis.tex", "years of work");
  const std::string made = box.path("made");
  ASSERT_EQ(run_limited(extract_args(data, made), 60).exit_code, 0);
  const std::string grown = box.path("grown");
  ASSERT_EQ(run_limited(extract_args(data, grown), 60).exit_code, 0);
  box.write("grown/my-notes.txt", "added by hand");
  const std::string fake = box.folder("fake");
  box.write("fake/manifest.jsonl", "not a manifest\n");
  box.write("fake/data.csv", "1,2,3\n");
  const Snapshot before = box.snapshot();

  Result r = run_limited(extract_args(data, mine), 60);
  expect_one_line_error(r, 2, "not empty");
  r = run_limited(extract_args(data, mine) + " --force", 60);
  expect_one_line_error(r, 2, "was not made by kbdata extract");
  r = run_limited(extract_args(data, grown) + " --force", 60);
  expect_one_line_error(r, 2, "my-notes.txt");
  r = run_limited(extract_args(data, fake) + " --force", 60);
  expect_one_line_error(r, 2, "not one kbdata wrote");
  expect_same_tree(before, box.snapshot());

  // What extract made is replaced, atomically: a folder with another selection.
  const std::string old_manifest = read_file(made + "/manifest.jsonl");
  r = run_limited("extract --data " + data + " -p trimul --top 1 --out " + made + " --force", 60);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(read_file(made + "/manifest.jsonl"), old_manifest);
  for (const auto& e : fs::directory_iterator(box.root())) {
    EXPECT_EQ(e.path().filename().string().find(".kbdata-"), std::string::npos) << e.path();
  }
}

// Item 2 / empty results: an extract that selects nothing creates no folder.
TEST(ExtractForce, NothingSelectedCreatesNoFolder) {
  Sandbox box;
  const std::string data = box.copy_sample();
  const Result r =
      run_limited("extract --data " + data + " -p trimul --user-name nobody-has-this-name --out " +
                      box.path("empty"),
                  60);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("nothing selected"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(box.path("empty")));
}

// Item 5: an extract's folder and files honour the umask.
TEST(ExtractForce, HonoursTheUmask) {
  Sandbox box;
  const std::string data = box.copy_sample();
  const std::string out = box.path("out");
  const Result r = run_limited(extract_args(data, out), 60, "umask 027 &&");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  struct stat st {};
  ::stat(out.c_str(), &st);
  EXPECT_EQ(st.st_mode & 0777, 0750u);
  ::stat((out + "/manifest.jsonl").c_str(), &st);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
}

// Item 4: synth never overwrites a folder of real data without --force.
TEST(SynthOut, RefusesAFolderItDidNotMake) {
  Sandbox box;
  const std::string real = box.copy_sample("real");
  box.write("real/README.md", "# My own data set\n");
  const std::string notes = box.folder("notes");
  box.write("notes/todo.txt", "x");
  const std::string file = box.write("file", "x");
  const Snapshot before = box.snapshot();
  for (const std::string& out : {real, notes}) {
    SCOPED_TRACE(out);
    const Result r = run_limited("synth --out " + out, 60);
    expect_one_line_error(r, 2, "was not made by kbdata synth");
  }
  const Result r = run_limited("synth --out " + file, 60);
  expect_one_line_error(r, 2, "not a folder");
  expect_same_tree(before, box.snapshot());
}

TEST(SynthOut, RewritesItsOwnFolderAndForceAllowsOthers) {
  Sandbox box;
  const std::string out = box.path("synthetic");
  ASSERT_EQ(run_limited("synth --out " + out, 60).exit_code, 0);
  Result r = run_limited("synth --out " + out + " --seed 2", 60);  // its own folder: no --force
  EXPECT_EQ(r.exit_code, 0) << r.err;
  box.write("synthetic/keep.txt", "mine");
  r = run_limited("synth --out " + out, 60);
  expect_one_line_error(r, 2, "was not made by kbdata synth");
  r = run_limited("synth --out " + out + " --force", 60);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_file(box.path("synthetic/keep.txt")),
            "mine");  // --force replaces synth's files only
}

}  // namespace
}  // namespace kbdata::testing
