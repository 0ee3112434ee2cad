// Every example command line kbdata documents runs on the bundled sample: the examples of each
// command's --help (and of `kbdata --help`), and the `$ kbdata ...` lines in the fenced blocks of
// README.md and docs/cli.md. Each source's examples run in order (a later one may read what an
// earlier one wrote) in a temporary folder holding a copy of data/sample (also as the folder
// --data ~/kernelbot names, HOME being the sandbox) and of its files, so that `kbdata inspect
// submissions.parquet` reads the sample's; /tmp/ paths are rewritten into the sandbox.
//
// An example must exit 0, unless the documentation shows its output as one `kbdata: ...` line (a
// failure or a warning): then it must print exactly that line on stderr (the sandbox shown as
// /tmp/work). The `$ cp`, `$ mkdir`, `$ printf` and `$ touch` lines between them run too, as the
// setup the examples after them need.
// Examples that need a PostgreSQL server (--db) are not run here (tests/platform runs export and
// synth --db against one), nor those of `kbdata pull` and of hf:// addresses, which need the hub
// (tests/hub runs them against a fake hub), nor `kbdata serve`, which runs until stopped
// (tests/browser runs it); every example runs with HF_HUB_OFFLINE=1, so none reaches the network.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/run_kbdata.h"

namespace {

namespace fs = std::filesystem;
using kbdata::testing::lines;
using kbdata::testing::read_file;

struct Example {
  std::string source;    // where it is documented
  std::string command;   // "kbdata ..." (continuation lines joined)
  std::string expected;  // the documented output, when it is one "kbdata: " line
  bool setup = false;    // a shell line that prepares the next examples (cp, mkdir, printf)
};

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

// Joins `line` with the following lines while it ends in a backslash.
std::string joined(const std::vector<std::string>& text, size_t& i, std::string line) {
  while (!line.empty() && line.back() == '\\' && i + 1 < text.size()) {
    line.pop_back();
    line += " " + trim(text[++i]);
  }
  return trim(line);
}

// The `$ kbdata ...` lines of the fenced blocks of a Markdown file, with the output shown after
// each (the lines up to the next `$` line or the block's end).
std::vector<Example> markdown_examples(const std::string& name) {
  const std::vector<std::string> text =
      lines(read_file(std::string(KBDATA_SOURCE_DIR) + "/" + name));
  std::vector<Example> out;
  bool fenced = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const std::string& line = text[i];
    if (line.rfind("```", 0) == 0) {
      fenced = !fenced;
      continue;
    }
    if (!fenced || line.rfind("$ ", 0) != 0) continue;
    if (line.rfind("$ kbdata ", 0) != 0) {
      for (const char* setup : {"$ cp ", "$ mkdir ", "$ printf ", "$ touch "}) {
        if (line.rfind(setup, 0) == 0)
          out.push_back({name, joined(text, i, line.substr(2)), "", true});
      }
      continue;
    }
    Example e{name + ":" + std::to_string(i + 1), joined(text, i, line.substr(2)), ""};
    std::vector<std::string> shown;
    for (size_t j = i + 1;
         j < text.size() && text[j].rfind("$ ", 0) != 0 && text[j].rfind("```", 0) != 0; ++j) {
      shown.push_back(text[j]);
    }
    if (shown.size() == 1 && shown[0].rfind("kbdata: ", 0) == 0) e.expected = shown[0];
    out.push_back(e);
  }
  return out;
}

struct Run {
  int exit_code = -1;
  std::string out, err;
};

// Runs `command` (shell words) in `dir` with HOME and KBDATA_DATA pointing into it.
Run run_in(const fs::path& dir, const std::string& command) {
  const fs::path out = dir / ".out", err = dir / ".err", in = dir / ".in";
  std::ofstream(in).close();  // an empty standard input
  // HF_HUB_OFFLINE and HF_HOME in the sandbox: no example ever reaches the network.
  const std::string line = "cd '" + dir.string() + "' && export HOME='" + (dir / "home").string() +
                           "' KBDATA_DATA='" + (dir / "data/sample").string() +
                           "' HF_HUB_OFFLINE=1 HF_HOME='" + (dir / "hf").string() + "' && ( " +
                           command + " )" + " >'" + out.string() + "' 2>'" + err.string() + "' <'" +
                           in.string() + "'";
  const int status = std::system(line.c_str());
  Run r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_file(out.string());
  r.err = read_file(err.string());
  return r;
}

// The help texts' examples: the lines after "Examples:" that start with "kbdata ".
std::vector<Example> help_examples(const fs::path& sandbox) {
  const std::string binary = KBDATA_BINARY;
  std::vector<std::string> commands = {""};
  const Run top = run_in(sandbox, binary + " --help");
  bool listing = false;
  for (const std::string& line : lines(top.out)) {
    if (line.rfind("Subcommands:", 0) == 0 || line.rfind("SUBCOMMANDS:", 0) == 0) {
      listing = true;
      continue;
    }
    if (listing && line.empty()) break;
    if (listing && line.size() > 2 && line[0] == ' ' && line[2] != ' ') {
      commands.push_back(trim(line).substr(0, trim(line).find(' ')));
    }
  }
  std::vector<Example> out;
  for (const std::string& command : commands) {
    const Run help = run_in(sandbox, binary + (command.empty() ? "" : " " + command) + " --help");
    const std::vector<std::string> text = lines(help.out);
    bool examples = false;
    for (size_t i = 0; i < text.size(); ++i) {
      if (trim(text[i]) == "Examples:") {
        examples = true;
        continue;
      }
      if (examples && trim(text[i]).empty()) examples = false;
      if (examples && trim(text[i]).rfind("kbdata ", 0) == 0) {
        const std::string source = "kbdata " + (command.empty() ? "" : command + " ") + "--help";
        const std::string example = joined(text, i, trim(text[i]));
        // A command's help repeats the program's footer: each example once.
        const bool seen = std::any_of(out.begin(), out.end(),
                                      [&](const Example& e) { return e.command == example; });
        if (!seen) out.push_back({source, example, ""});
      }
    }
  }
  return out;
}

std::string corpus_dir() {
  const char* corpus = std::getenv("KBDATA_CORPUS");
  return corpus != nullptr ? corpus
                           : fs::weakly_canonical(fs::path(KBDATA_SOURCE_DIR) / ".." / "shared" /
                                                  "parquet-corpus")
                                 .string();
}

// The command line to run for `example`: the binary for "kbdata", /tmp/ into the sandbox, the
// corpus where KBDATA_CORPUS says, and only the kbdata command of a pipeline or redirection (its
// output is captured instead).
std::string runnable(const std::string& example) {
  std::string command;
  char quote = 0;
  for (char c : example) {
    if (quote != 0) {
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '|' || c == '>') {
      break;
    }
    command += c;
  }
  command = trim(command);
  command = std::string(KBDATA_BINARY) + command.substr(std::string("kbdata").size());
  for (size_t at; (at = command.find(" /tmp/")) != std::string::npos;) {
    command.replace(at, 6, " tmp/");
  }
  const std::string corpus = "../shared/parquet-corpus";
  for (size_t at = 0; (at = command.find(corpus, at)) != std::string::npos;) {
    command.replace(at, corpus.size(), corpus_dir());
    at += corpus_dir().size();
  }
  return command;
}

bool needs_database(const std::string& command) {
  return command.find(" --db ") != std::string::npos;
}

// `kbdata pull` and hf:// addresses talk to the Hugging Face hub: tests/hub runs them against a
// fake hub instead.
bool needs_hub(const std::string& command) {
  return command.rfind("kbdata pull", 0) == 0 ||
         command.find("$(kbdata pull") != std::string::npos ||
         command.find("hf://") != std::string::npos;
}

// `kbdata serve` runs until it is stopped: tests/browser runs it, with a browser as its client.
bool runs_until_stopped(const std::string& command) {
  return command.rfind("kbdata serve", 0) == 0;
}

// A fresh sandbox: the sample as data/sample, as home/kernelbot, and its files in the folder.
fs::path make_sandbox(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("kbdata-examples-" + std::to_string(::getpid()) + "-" + name);
  fs::remove_all(dir);
  const fs::path sample = fs::path(KBDATA_SOURCE_DIR) / "data" / "sample";
  fs::create_directories(dir / "data");
  fs::create_directories(dir / "home");
  fs::create_directories(dir / "tmp");
  fs::create_directories(dir / "tests");
  fs::copy(sample, dir / "data" / "sample", fs::copy_options::recursive);
  fs::copy(sample, dir / "home" / "kernelbot", fs::copy_options::recursive);
  for (const fs::directory_entry& f : fs::directory_iterator(sample)) {
    if (f.path().extension() == ".parquet") fs::copy(f.path(), dir / f.path().filename());
  }
  fs::create_directory_symlink(fs::path(KBDATA_SOURCE_DIR) / "tests" / "data",
                               dir / "tests" / "data");
  return dir;
}

// A message as the documentation would show it: the sandbox as /tmp/work (relative paths are
// printed as typed), the corpus as "../shared/parquet-corpus", no final newline.
std::string as_documented(std::string text, const fs::path& sandbox) {
  auto replace_all = [&](const std::string& from, const std::string& to) {
    for (size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size()) {
      text.replace(at, from.size(), to);
    }
  };
  replace_all(corpus_dir(), "../shared/parquet-corpus");
  replace_all(sandbox.string(), "/tmp/work");
  if (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

void run_examples(const std::string& name, const std::vector<Example>& examples, size_t at_least) {
  const fs::path sandbox = make_sandbox(name);
  size_t ran = 0;
  for (const Example& e : examples) {
    if (e.setup) {
      const Run r = run_in(sandbox, e.command);
      ASSERT_EQ(r.exit_code, 0) << e.source << ": " << e.command << "\n" << r.err;
      continue;
    }
    if (needs_database(e.command) || needs_hub(e.command) || runs_until_stopped(e.command)) {
      continue;
    }
    const std::string command = runnable(e.command);
    if (command.find("parquet-corpus") != std::string::npos) {
      const size_t begin = command.find('/', command.find(' '));
      const std::string path = command.substr(begin, command.find(' ', begin) - begin);
      if (!fs::exists(path)) continue;  // the corpus is beside the repository, not in it
    }
    ++ran;
    const Run r = run_in(sandbox, command);
    if (e.expected.empty()) {
      EXPECT_EQ(r.exit_code, 0) << e.source << ": " << e.command << "\n" << r.err;
    } else {
      // A documented failure (or warning): exactly the documented line.
      EXPECT_EQ(as_documented(r.err, sandbox), e.expected) << e.source << ": " << e.command;
    }
  }
  EXPECT_GE(ran, at_least) << name << ": fewer examples than expected were found";
  fs::remove_all(sandbox);
}

TEST(Examples, EveryHelpExampleRunsOnTheSample) {
  const fs::path scratch = make_sandbox("help-list");
  const std::vector<Example> examples = help_examples(scratch);
  fs::remove_all(scratch);
  run_examples("help", examples, 25);
}

TEST(Examples, EveryReadmeExampleRunsOnTheSample) {
  run_examples("readme", markdown_examples("README.md"), 15);
}

TEST(Examples, EveryCliDocExampleRunsOnTheSample) {
  run_examples("cli-doc", markdown_examples("docs/cli.md"), 5);
}

}  // namespace
