// What every kbdata command pays before main(): the binary must not link libpq (loaded with dlopen
// by the commands that use a database, src/platform/libpq_api.h), libcurl (loaded by `kbdata
// pull`, src/hub/curl_api.h) or libcrypto (SHA-256 comes from
// nettle), whose dependency trees cost more start-up than most commands' work. And what the
// database commands say when libpq cannot be loaded.
#include <elf.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "support/cli_expect.h"
#include "support/run_kbdata.h"

namespace {

namespace fs = std::filesystem;
using kbdata::testing::expect_one_line_error;
using kbdata::testing::read_file;
using kbdata::testing::Result;
using kbdata::testing::run;

// The DT_NEEDED entries of the 64-bit little-endian ELF file at `path`, read from its section
// headers: the dynamic section and the string table it links to. Empty if the file is not one.
std::vector<std::string> needed_libraries(const std::string& path) {
  const std::string elf = read_file(path);
  std::vector<std::string> out;
  Elf64_Ehdr header;
  if (elf.size() < sizeof header) return out;
  std::memcpy(&header, elf.data(), sizeof header);
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64 ||
      header.e_shentsize != sizeof(Elf64_Shdr) ||
      header.e_shoff + uint64_t{header.e_shnum} * sizeof(Elf64_Shdr) > elf.size()) {
    return out;
  }
  auto section = [&](size_t i) {
    Elf64_Shdr s;
    std::memcpy(&s, elf.data() + header.e_shoff + i * sizeof s, sizeof s);
    return s;
  };
  for (size_t i = 0; i < header.e_shnum; ++i) {
    const Elf64_Shdr dynamic = section(i);
    if (dynamic.sh_type != SHT_DYNAMIC || dynamic.sh_link >= header.e_shnum) continue;
    const Elf64_Shdr strings = section(dynamic.sh_link);
    if (dynamic.sh_offset + dynamic.sh_size > elf.size() ||
        strings.sh_offset + strings.sh_size > elf.size()) {
      return out;
    }
    for (uint64_t at = 0; at + sizeof(Elf64_Dyn) <= dynamic.sh_size; at += sizeof(Elf64_Dyn)) {
      Elf64_Dyn entry;
      std::memcpy(&entry, elf.data() + dynamic.sh_offset + at, sizeof entry);
      if (entry.d_tag == DT_NULL) break;
      if (entry.d_tag != DT_NEEDED || entry.d_un.d_val >= strings.sh_size) continue;
      out.emplace_back(elf.c_str() + strings.sh_offset + entry.d_un.d_val);
    }
  }
  return out;
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0;
}

TEST(Startup, BinaryDoesNotNeedLibpqLibcurlOrLibcrypto) {
  const std::vector<std::string> needed = needed_libraries(KBDATA_BINARY);
  std::string all;
  for (const std::string& n : needed) all += n + " ";
  // The parser found the dynamic section: every dynamic C++ program needs libc.
  ASSERT_NE(std::find(needed.begin(), needed.end(), "libc.so.6"), needed.end()) << all;
  for (const std::string& n : needed) {
    EXPECT_FALSE(starts_with(n, "libpq.")) << all;
    EXPECT_FALSE(starts_with(n, "libcurl")) << all;
    EXPECT_FALSE(starts_with(n, "libcrypto.")) << all;
    EXPECT_FALSE(starts_with(n, "libssl.")) << all;
  }
}

// Everything the loader maps at start-up, libraries of libraries included: with
// LD_TRACE_LOADED_OBJECTS set, glibc's loader lists them (as ldd does) instead of running main.
// Set for kbdata alone: in the environment of popen's shell, the shell would be listed instead.
TEST(Startup, LoaderMapsNoneOfLibpqsDependencies) {
  const std::string command = std::string("LD_TRACE_LOADED_OBJECTS=1 ") + KBDATA_BINARY;
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string listed;
  char buffer[4096];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) listed.append(buffer, n);
  ASSERT_EQ(::pclose(pipe), 0) << listed;
  ASSERT_NE(listed.find("libzstd.so"), std::string::npos) << "not kbdata's libraries:\n" << listed;
  for (const char* library : {"libpq.", "libcurl", "libnghttp2", "libssh2", "libcrypto.", "libssl.",
                              "libkrb5", "libldap", "libgnutls"}) {
    EXPECT_EQ(listed.find(library), std::string::npos) << library << " in\n" << listed;
  }
}

class MissingLibpq : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kbdata-startup-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
  }
  void TearDown() override {
    ::unsetenv("KBDATA_LIBPQ");
    fs::remove_all(dir_);
  }
  // `kbdata export` to a port nobody listens on, with KBDATA_LIBPQ set to `library`.
  Result export_with(const std::string& library) {
    ::setenv("KBDATA_LIBPQ", library.c_str(), 1);
    return run("export --db postgresql://127.0.0.1:1/x --out " + dir_.string() + " --config a=1");
  }
  fs::path dir_;
};

TEST_F(MissingLibpq, ExportFailsWithOneLineAndCreatesNothing) {
  const std::string missing = (dir_.parent_path() / "no-such-folder" / "libpq.so.5").string();
  Result r = export_with(missing);
  expect_one_line_error(r, 1, "cannot load libpq (" + missing + ": ");
  EXPECT_NE(r.err.find("need the libpq5 package"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_)) << "the output folder was created";
}

TEST_F(MissingLibpq, ALibraryWithoutLibpqsFunctionsIsRefusedByName) {
  Result r = export_with("libc.so.6");
  expect_one_line_error(r, 1, "cannot load libpq (");
  EXPECT_NE(r.err.find("PQconnectdbParams"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_)) << "the output folder was created";
}

TEST_F(MissingLibpq, SynthDbFailsWithOneLine) {
  ::setenv("KBDATA_LIBPQ", "/nonexistent/libpq.so.5", 1);
  expect_one_line_error(run("synth --db postgresql://127.0.0.1:1/x"), 1, "cannot load libpq (");
}

// The override names the real library: it loads, and the export gets as far as connecting.
TEST_F(MissingLibpq, TheRealLibraryLoadsAndConnects) {
  Result r = export_with("libpq.so.5");
  expect_one_line_error(r, 1, "database 127.0.0.1:1/x: cannot connect");
}

}  // namespace
