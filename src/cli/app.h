// The kbdata program: parses the command line, runs the one command it names, and turns errors
// into one-line messages and exit codes (0 success, 1 failed on the input, 2 wrong usage).
#pragma once

namespace kbdata::cli {

// Runs `kbdata ARGS...` as main() would and returns the exit status.
[[nodiscard]] int run_command_line(int argc, char** argv);

}  // namespace kbdata::cli
