// A command run from inside another program (the Python module, src/python) rather than from the
// command line: the same parsing, checks, loads and messages, but the command's answer is handed
// back as a result table instead of being written, its messages go to streams the caller chose,
// and long work asks the caller, now and then, whether to stop (Ctrl-C in a notebook).
//
// A command that supports it calls hand_over() where it would write its answer (in a machine
// format: the columns of --format json) and returns when it says so; its stdout and stderr are
// command_out() and command_err(). The run is per thread: two threads may each run one.
#pragma once

#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "result/table.h"

namespace kbdata::cli {

struct EmbeddedRun {
  std::FILE* out = nullptr;  // the command's stdout (what it writes besides the answer)
  std::FILE* err = nullptr;  // the command's stderr (notes, warnings; no progress unless a tty)
  // Called now and then during long work on the thread that runs the command (cli::Progress);
  // throws to stop it (the exception travels out of the command unchanged). May be empty.
  std::function<void()> check;
  // Set by a caller that takes a command's rows as they are made (the Python module's stream of
  // submissions): a command that can stream calls stream_rows() with its answer table once its
  // columns are known and after each row, and `stream` takes the sealed batches out of it
  // (result::ResultTable::take_batches); what is left is handed over at the end. May throw to stop
  // the command, as `check` may.
  std::function<void(result::ResultTable&)> stream;
  // Set by a caller that shows progress (a terminal or a notebook): cli::Progress hands it each
  // line it would draw on a terminal ("\r..." rewriting the line; "\r\x1b[K" erases it at the
  // end), whatever the streams above are. Called by one thread at a time: the one that runs the
  // command, or a library's worker reporting progress (common/progress.h).
  std::function<void(const std::string& line)> progress;
  // The table to hand over, for a command whose answer is several (configs: "configs",
  // "contents", "other_files", "skipped"); empty: its first.
  std::string part;
  std::optional<result::ResultTable> answer;  // set by hand_over()
  uint32_t calls = 0;                         // check_interrupted()'s counter
};

// Runs `args` (the words after "kbdata": the command and its options) as kbdata's command line
// would, in `run`, and returns the answer the command handed over (none for a command that
// writes what it makes, or has no answer to give: pull). Throws what the command throws, and
// UsageError for what the command line would refuse (with the same message, without "kbdata: "
// and the help hint). Defined in app.cc, beside run_command_line.
[[nodiscard]] std::optional<result::ResultTable> run_embedded(const std::vector<std::string>& args,
                                                              EmbeddedRun& run);
// run_embedded for a command that answers: throws std::logic_error when it hands over none.
[[nodiscard]] result::ResultTable answer_command_line(const std::vector<std::string>& args,
                                                      EmbeddedRun& run);

// The embedded run of this thread, or nullptr on the command line.
[[nodiscard]] EmbeddedRun* embedded_run();

// Where a command writes: the embedded run's streams, else stdout and stderr.
[[nodiscard]] std::FILE* command_out();
[[nodiscard]] std::FILE* command_err();

// In an embedded run: keeps `table` as the answer and returns true (the command writes nothing
// more and returns). On the command line: returns false and leaves `table` alone.
[[nodiscard]] bool hand_over(result::ResultTable& table);
[[nodiscard]] bool hand_over(result::ResultTable&& table);

// In an embedded run that streams (EmbeddedRun::stream): hands `table`'s sealed batches on. A
// no-op otherwise (the command line, or a caller that takes the whole answer at the end).
void stream_rows(result::ResultTable& table);

// In an embedded run: every 4096th call, calls its check (which may throw). Cheap otherwise.
void check_interrupted();

// Makes `run` this thread's embedded run until destroyed.
class EmbeddedScope {
 public:
  explicit EmbeddedScope(EmbeddedRun& run);
  ~EmbeddedScope();
  EmbeddedScope(const EmbeddedScope&) = delete;
  EmbeddedScope& operator=(const EmbeddedScope&) = delete;

 private:
  EmbeddedRun* previous_;
};

}  // namespace kbdata::cli
