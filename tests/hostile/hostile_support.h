// Helpers of the hostile-input tests: the corpus location, running the kbdata binary and running
// a function in a forked child, each bounded by a timeout.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kbdata::hostile {

namespace fs = std::filesystem;

inline bool env_flag(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' && std::string(value) != "0" &&
         std::string(value) != "false";
}

// $KBDATA_CORPUS, else ../shared/parquet-corpus beside the source tree; nullopt when missing.
inline fs::path corpus_location() {
  const char* value = std::getenv("KBDATA_CORPUS");
  if (value != nullptr && *value != '\0') return value;
  return fs::path(KBDATA_SOURCE_DIR) / ".." / "shared" / "parquet-corpus";
}
inline std::optional<fs::path> corpus_root() {
  std::error_code ec;
  fs::path root = corpus_location();
  if (!fs::is_directory(root, ec)) return std::nullopt;
  return fs::weakly_canonical(root, ec);
}

struct ProcessResult {
  bool timed_out = false;
  int exit_code = -1;  // when exited normally
  int signal = 0;      // when killed by a signal
  std::string out;     // stdout (or the child's report, for run_in_child)
  std::string err;
  long max_rss_kib = 0;  // the child's peak resident set (getrusage via wait4)

  [[nodiscard]] std::string describe() const {
    if (timed_out) return "timed out";
    if (signal != 0) return "killed by signal " + std::to_string(signal);
    return "exit status " + std::to_string(exit_code);
  }
};

// Reads both pipes until the child ends or `timeout` passes (then kills it).
inline ProcessResult collect(pid_t pid, int out_fd, int err_fd, std::chrono::seconds timeout) {
  ProcessResult result;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::vector<pollfd> fds = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  int open_fds = 2;
  char buffer[65536];
  while (open_fds > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    if (poll(fds.data(), fds.size(), static_cast<int>(left.count())) <= 0) continue;
    for (size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
        (i == 0 ? result.out : result.err).append(buffer, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (auto& f : fds) {
    if (f.fd >= 0) close(f.fd);
  }
  int status = 0;
  rusage usage{};
  while (wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  result.max_rss_kib = usage.ru_maxrss;
  if (!result.timed_out) {
    if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  }
  return result;
}

// Runs `argv` (argv[0] a path) with stdin from /dev/null; stdout is kept only when `keep_stdout`
// (discarded otherwise, so that large outputs cost nothing).
inline ProcessResult run_program(const std::vector<std::string>& argv, std::chrono::seconds timeout,
                                 bool keep_stdout = true) {
  int out_pipe[2];
  int err_pipe[2];
  if (pipe(out_pipe) != 0 || pipe(err_pipe) != 0) std::abort();
  pid_t pid = fork();
  if (pid == 0) {
    int null_fd = open("/dev/null", O_RDWR);
    dup2(null_fd, 0);
    dup2(keep_stdout ? out_pipe[1] : null_fd, 1);
    dup2(err_pipe[1], 2);
    close(out_pipe[0]);
    close(err_pipe[0]);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  return collect(pid, out_pipe[0], err_pipe[0], timeout);
}

// Runs `body` in a forked child, which writes its return value to `out` and exits 0. A crash, a
// hang (past `timeout`) or an abort shows in the result instead of taking the test down.
inline ProcessResult run_in_child(const std::function<std::string()>& body,
                                  std::chrono::seconds timeout) {
  int out_pipe[2];
  int err_pipe[2];
  if (pipe(out_pipe) != 0 || pipe(err_pipe) != 0) std::abort();
  pid_t pid = fork();
  if (pid == 0) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    dup2(err_pipe[1], 2);
    std::string report = body();
    size_t done = 0;
    while (done < report.size()) {
      ssize_t n = write(out_pipe[1], report.data() + done, report.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    _exit(0);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  return collect(pid, out_pipe[0], err_pipe[0], timeout);
}

// Current peak resident set of this process, in KiB.
inline long peak_rss_kib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

}  // namespace kbdata::hostile
