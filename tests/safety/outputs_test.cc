// Safety of file outputs (docs/cli.md, "Safety"): what OUT may be, inputs never replaced, modes,
// temporaries. Every case runs in its own sandbox and checks the exit status, the one-line
// message and every pre-existing file's bytes and mode afterwards.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "common/output_target.h"
#include "safety/sandbox.h"
#include "support/cli_expect.h"

namespace kbdata::testing {
namespace {

// A command with a file output, as a user types it; OUT is where the output goes, DATA the data
// folder (a copy of the sample), IN a config file of it.
struct Writer {
  std::string name;
  std::string args;  // with OUT, DATA and IN to fill in
  std::string extension = ".parquet";
};

const std::vector<Writer>& writers() {
  static const std::vector<Writer> all = {
      {"convert", "convert IN OUT"},
      {"dedup", "dedup IN OUT --exact"},
      {"submissions", "submissions --data DATA -p trimul -f parquet -o OUT"},
      {"top", "top --data DATA -p trimul -f parquet -o OUT"},
      {"fastest", "fastest --data DATA -f parquet -o OUT"},
      {"stats", "stats --data DATA -f parquet -o OUT"},
      // -o takes every format (docs/cli.md, "Output files"): the text ones obey the same rules.
      {"top_csv", "top --data DATA -p trimul -o OUT", ".csv"},
      {"records_json", "records --data DATA -p trimul -o OUT", ".json"},
      {"noise_table", "noise --data DATA -p trimul -o OUT", ".txt"},
      {"audit_jsonl", "audit --data DATA -p trimul -o OUT", ".jsonl"},
      {"techniques_trend_csv", "techniques --data DATA -p trimul --trend -o OUT", ".csv"},
      {"pairs", "pairs --data DATA -p trimul -o OUT", ".jsonl"},
      {"records_plot", "records --data DATA -p trimul --runner H100 --plot OUT", ".svg"},
      {"progression_plot", "progression --data DATA --user tonda -p nvfp4_dual_gemm --plot OUT",
       ".svg"},
  };
  return all;
}

std::string fill(const std::string& args, const std::string& data, const std::string& out) {
  return fill_placeholders(args, {{"DATA", shell_quote(data)},
                                  {"IN", shell_quote(data + "/trimul_submissions.parquet")},
                                  {"OUT", shell_quote(out)}});
}

void PrintTo(const Writer& w, std::ostream* os) { *os << w.name; }

class FileOutputs : public ::testing::TestWithParam<Writer> {};

// Item 1: OUT that exists and is not a regular file is refused before any work, in one line, and
// stays what it was; nothing else appears.
TEST_P(FileOutputs, RefuseSpecialFilesAndFolders) {
  const Writer& w = GetParam();
  Sandbox box;
  const std::string data = box.copy_sample();
  std::vector<std::pair<std::string, std::string>> targets = {
      {box.fifo("fifo" + w.extension), "a FIFO"},
      {box.folder("folder" + w.extension), "a folder"},
      {box.socket("sock" + w.extension), "a socket"},
      {box.symlink(box.path("fifo" + w.extension), "link-to-fifo" + w.extension), "a FIFO"},
  };
  if (auto device = box.device("device" + w.extension))
    targets.push_back({*device, "a character device"});
  const Snapshot before = box.snapshot();
  for (const auto& [out, kind] : targets) {
    SCOPED_TRACE(w.name + " -> " + out);
    const Result r = run_limited(fill(w.args, data, out), 60);
    expect_one_line_error(r, 2, kind);
    EXPECT_NE(r.err.find("kbdata writes only regular files"), std::string::npos) << r.err;
  }
  expect_same_tree(before, box.snapshot());
}

// Item 3: OUT is never one of the command's inputs, through any path or link.
TEST_P(FileOutputs, RefuseToReplaceAnInput) {
  const Writer& w = GetParam();
  // --plot takes only a name ending in .svg, so it is refused a config for that reason first.
  const std::string refusal =
      w.extension == ".svg" ? "--plot writes SVG" : "is one of the command's inputs";
  Sandbox box;
  const std::string data = box.copy_sample();
  const std::string input = data + "/trimul_submissions.parquet";
  const std::string config = data + "/nvidia_nvfp4_submissions.parquet";
  box.symlink(input, "link.parquet");
  fs::create_hard_link(input, box.path("hard.parquet"));
  const Snapshot before = box.snapshot();
  std::vector<std::string> outs = {input, data + "/../data/trimul_submissions.parquet",
                                   box.path("link.parquet"), box.path("hard.parquet")};
  // A data command reads every config of its folder: none of them may be its output.
  if (w.args.find("DATA") != std::string::npos) outs.push_back(config);
  for (const std::string& out : outs) {
    SCOPED_TRACE(w.name + " -> " + out);
    const Result r = run_limited(fill(w.args, data, out), 60);
    expect_one_line_error(r, 2, refusal);
  }
  expect_same_tree(before, box.snapshot());
}

// Item 1: a symlink at OUT is followed: the link stays, the file it names is replaced (keeping its
// mode); a dangling link gets its file created.
TEST_P(FileOutputs, FollowSymlinks) {
  const Writer& w = GetParam();
  Sandbox box;
  const std::string data = box.copy_sample();
  box.folder("elsewhere");
  const std::string target = box.write("elsewhere/target" + w.extension, "old bytes", 0600);
  const std::string link = box.symlink(target, "link" + w.extension);
  Result r = run_limited(fill(w.args, data, link), 60);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(fs::read_symlink(link), target);
  EXPECT_NE(read_file(target), "old bytes");
  EXPECT_EQ(fs::status(target).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);

  const std::string dangling = box.symlink("elsewhere/new" + w.extension, "dangling" + w.extension);
  r = run_limited(fill(w.args, data, dangling), 60);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(dangling));
  EXPECT_TRUE(fs::is_regular_file(box.path("elsewhere/new" + w.extension)));
}

// Item 1: a missing folder is refused, and nothing is written anywhere.
TEST_P(FileOutputs, MissingFolderIsRefusedBeforeTheWork) {
  const Writer& w = GetParam();
  Sandbox box;
  const std::string data = box.copy_sample();
  const Snapshot before = box.snapshot();
  const Result r =
      run_limited(fill(w.args, data, box.path("no/such/folder/out" + w.extension)), 60);
  expect_one_line_error(r, 2, "does not exist");
  expect_same_tree(before, box.snapshot());
}

INSTANTIATE_TEST_SUITE_P(Safety, FileOutputs, ::testing::ValuesIn(writers()),
                         [](const auto& writer) { return writer.param.name; });

// The page data of a config damaged in the middle (its footer intact): reading its rows fails.
std::string damage_middle(const std::string& path) {
  std::string bytes = read_file(path);
  for (size_t i = bytes.size() / 3; i < bytes.size() / 3 + 64; ++i)
    bytes[i] = static_cast<char>(~bytes[i]);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  return path;
}

TEST(OutputChecks, ComeBeforeReadingTheData) {
  Sandbox box;
  const std::string data = box.copy_sample();
  const std::string in = damage_middle(data + "/nvidia_nvfp4_submissions.parquet");
  const std::string fifo = box.fifo("fifo.parquet");
  // The damaged input is read only after OUT is checked: the error is about OUT.
  for (const std::string& args :
       {"dedup " + in + " " + box.path("missing/out.parquet") + " --fuzzy",
        "convert " + in + " " + box.path("missing/out.parquet"), "convert " + in + " " + fifo}) {
    const Result r = run_limited(args, 60);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
    EXPECT_EQ(r.err.find("nvidia_nvfp4_submissions.parquet:"), std::string::npos) << r.err;
  }
}

// Item 1: a folder that cannot be written is refused before the work. Root writes anywhere, so as
// root the command runs as the unprivileged user 'nobody' (setpriv) on a sandbox it can read.
TEST(OutputChecks, UnwritableFolderIsRefusedBeforeTheWork) {
  Sandbox box;
  ::chmod(box.root().c_str(), 0755);
  const std::string data = box.copy_sample();
  const std::string locked = box.folder("locked", 0555);
  std::string prefix;
  if (::geteuid() == 0) {
    if (::access("/usr/bin/setpriv", X_OK) != 0) GTEST_SKIP() << "needs setpriv to drop root";
    prefix = "setpriv --reuid=65534 --regid=65534 --clear-groups";
  }
  const Snapshot before = box.snapshot();
  const Result r = run_limited(
      "convert " + data + "/trimul_submissions.parquet " + locked + "/out.parquet", 60, prefix);
  expect_one_line_error(r, 1, "cannot write into");
  expect_same_tree(before, box.snapshot());
}

// Item 1: --out and --plot naming one file: the second would silently replace the first.
TEST(OutputChecks, TwoOutputsOfOneCommandAreDistinct) {
  Sandbox box;
  const std::string data = box.copy_sample();
  const Result r = run_limited("records --data " + data + " -p trimul -f parquet -o " +
                                   box.path("x.svg") + " --plot " + box.path("x.svg"),
                               60);
  expect_one_line_error(r, 2, "already another output");
  EXPECT_FALSE(fs::exists(box.path("x.svg")));
}

mode_t mode_of(const std::string& path) {
  struct stat st {};
  ::stat(path.c_str(), &st);
  return st.st_mode & 0777;
}

// Item 5: new outputs honour the umask; a replaced file keeps its mode.
TEST(Permissions, NewFilesHonourTheUmaskAndReplacedFilesKeepTheirMode) {
  Sandbox box;
  const std::string data = box.copy_sample();
  const std::string in = data + "/trimul_submissions.parquet";
  struct Case {
    std::string umask;
    mode_t expected;
  };
  for (const Case& c : {Case{"022", 0644}, Case{"027", 0640}, Case{"077", 0600}}) {
    const std::string out = box.path("new-" + c.umask + ".parquet");
    Result r = run_limited("convert " + in + " " + out, 60, "umask " + c.umask + " &&");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(mode_of(out), c.expected) << "umask " << c.umask;
    const std::string svg = box.path("plot-" + c.umask + ".svg");
    r = run_limited("records --data " + data + " -p trimul --runner H100 --plot " + svg, 60,
                    "umask " + c.umask + " &&");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(mode_of(svg), c.expected) << "umask " << c.umask;
  }
  const std::string kept = box.write("kept.parquet", "previous", 0640);
  Result r = run_limited("convert " + in + " " + kept, 60, "umask 000 &&");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(mode_of(kept), 0640u);
  EXPECT_NE(read_file(kept), "previous");
}

// Item 7: a name of 250 bytes works (the temporary's name stays short).
TEST(Temporaries, LongNamesWork) {
  Sandbox box;
  const std::string data = box.copy_sample();
  const std::string name = std::string(242, 'n') + ".parquet";  // 250 bytes
  const Result r =
      run_limited("convert " + data + "/trimul_submissions.parquet " + box.path(name), 60);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_regular_file(box.path(name)));
}

// A pid that no process has: a child's, after it exited and was reaped.
pid_t dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  return child;
}

// Item 7: temporaries that a killed kbdata left are removed the next time the same OUT is
// written; a live one (its process running, its lock held) is left alone.
TEST(Temporaries, StaleOnesAreRemovedLiveOnesKept) {
  Sandbox box;
  const std::string data = box.copy_sample();
  const std::string out = box.path("out.parquet");
  std::string stale = temporary_template(out);
  stale.replace(stale.find(std::to_string(::getpid()) + "-XXXXXX"), std::string::npos,
                std::to_string(dead_pid()) + "-abcdef");
  box.write(fs::path(stale).filename().string(), "left by SIGKILL");
  std::string live = temporary_template(out);
  live.replace(live.size() - 6, 6, "ghijkl");  // this test's own pid: a process that runs
  box.write(fs::path(live).filename().string(), "being written");
  const int live_fd = ::open(live.c_str(), O_RDONLY);
  ASSERT_TRUE(lock_temporary(live_fd));
  const Result r = run_limited("convert " + data + "/trimul_submissions.parquet " + out, 60);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(live));
  ::close(live_fd);
}

// Item 7 for real: kbdata killed with SIGKILL while writing leaves its temporary; the next write
// of the same OUT removes it.
TEST(Temporaries, SigkillLeftoversAreCleanedByTheNextWrite) {
  Sandbox box;
  Result r = run_limited("synth --scale medium --family flat --out " + box.path("big"), 120);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string in = box.path("big/nvidia_nvfp4_submissions.parquet");
  const std::string out = box.path("out.parquet");
  const pid_t child = ::fork();
  if (child == 0) {
    ::execl(KBDATA_BINARY, KBDATA_BINARY, "convert", in.c_str(), out.c_str(), "-z", "zstd",
            "--level", "19", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  auto temporaries = [&] {
    std::vector<std::string> found;
    for (const auto& e : fs::directory_iterator(box.root())) {
      if (e.path().filename().string().find(".kbdata-") != std::string::npos) {
        found.push_back(e.path().string());
      }
    }
    return found;
  };
  bool seen = false;
  for (int i = 0; i < 2000 && !seen; ++i) {
    seen = !temporaries().empty();
    if (!seen) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  ASSERT_TRUE(seen) << "the convert never showed its temporary";
  ASSERT_FALSE(temporaries().empty()) << "SIGKILL left nothing to clean";
  EXPECT_FALSE(fs::exists(out));
  r = run_limited("convert " + in + " " + out, 120);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(temporaries().empty());
  EXPECT_TRUE(fs::is_regular_file(out));
}

}  // namespace
}  // namespace kbdata::testing
