// Test-only: runs the kbdata binary as a user would and captures what it prints.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace kbdata::testing {

struct Result {
  int exit_code;
  std::string out;
  std::string err;
};

// A file of the shipped test data.
inline std::string data(const std::string& name) {
  return std::string(KBDATA_TEST_DATA) + "/" + name;
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The lines of `text`, without their "\n".
inline std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// Runs `kbdata ARGS` through the shell (ARGS is a shell word list) and returns its exit code,
// stdout and stderr.
inline Result run(const std::string& args) {
  static int counter = 0;
  std::string err_path =
      std::filesystem::temp_directory_path() /
      ("kbdata-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".err");
  std::string command = std::string(KBDATA_BINARY) + " " + args + " 2>" + err_path;
  Result result;
  FILE* pipe = ::popen(command.c_str(), "r");
  char buffer[65536];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) result.out.append(buffer, n);
  int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.err = read_file(err_path);
  std::filesystem::remove(err_path);
  return result;
}

}  // namespace kbdata::testing
