#include "cli/serve_command.h"

#include <malloc.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "analysis/near_duplicates.h"
#include "analysis/noise.h"
#include "audit/folder_audit.h"
#include "cli/configs_command.h"
#include "cli/threads.h"
#include "common/error.h"
#include "common/shared_library.h"
#include "dataset/resident.h"
#include "query/techniques.h"
#include "report/text.h"
#include "report/writer.h"
#include "serve/http_server.h"
#include "serve/site.h"

namespace kbdata::cli {
namespace {

namespace fs = std::filesystem;

// ---- the transport module ----------------------------------------------------------------

// kbdata-http.so beside the binary (the build folder), else in ../lib/kbdata (an installed
// tree); $KBDATA_HTTP_MODULE overrides both.
std::unique_ptr<serve::HttpBackend> load_backend() {
  static std::string path = [] {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    for (const fs::path& candidate :
         {exe.parent_path() / "kbdata-http.so",
          exe.parent_path() / ".." / "lib" / "kbdata" / "kbdata-http.so"}) {
      if (fs::is_regular_file(candidate, ec)) return candidate.string();
    }
    return std::string("kbdata-http.so");
  }();
  static SharedLibrary library("KBDATA_HTTP_MODULE", path.c_str(), "kbdata's HTTP module",
                               "it is built beside the kbdata binary (kbdata-http.so, which needs "
                               "Debian's libcpp-httplib)");
  serve::MakeHttpBackend make = nullptr;
  library.resolve(serve::kMakeHttpBackend, make);
  return std::unique_ptr<serve::HttpBackend>(make());
}

// A note of the index's progress on stderr: one that cannot be written (stderr closed) is lost,
// which changes nothing else (SIGPIPE is ignored while serving).
void say(std::FILE* err, const std::string& line) {
  std::fputs(line.c_str(), err);
  std::fflush(err);
}

// ---- signals ----------------------------------------------------------------------------

// SIGINT, SIGTERM and SIGHUP blocked in every thread started after this (the server's); a thread
// of its own waits for one and stops the server.
sigset_t stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  return set;
}

// The site's options: the folder, which every answer opens afresh (what opening says, notes on
// files not read, was said at start-up), and /api/configs: the configs query's answer, of a
// folder or of an hf:// data set's tree (which the site cannot list itself: it knows no hub).
serve::SiteOptions site_options_of(const dataset::DataDir& dir, const DataOptions& data) {
  serve::SiteOptions site_options;
  site_options.folder = dir.path;
  site_options.threads = command_threads(data.threads);
  site_options.open = [data] {
    dataset::DataDir opened;
    (void)report::rendered_text(
        [&](std::FILE*, std::FILE* notes) { opened = open_data_dir(data, notes); });
    return opened;
  };
  site_options.configs_json = [data] {
    std::string document;
    (void)report::rendered_text(
        [&](std::FILE*, std::FILE* notes) { document = configs_json_document(data, notes); });
    return document;
  };
  return site_options;
}

// Where the site is served, on stdout; on stderr, a warning when it is not only this machine's.
void say_where(const ServeOptions& options, const std::string& folder, int port, std::FILE* out,
               std::FILE* err) {
  const std::string host =
      options.bind.find(':') != std::string::npos ? "[" + options.bind + "]" : options.bind;
  if (!serve::is_loopback(options.bind)) {
    report::write_all(err, "kbdata: WARNING: serving on " + options.bind +
                               ", not only this machine: anyone who can reach it on port " +
                               std::to_string(port) +
                               " can read this data (--bind 127.0.0.1 keeps it local)\n");
  }
  report::write_all(
      out, "kbdata: serving " + folder + " at http://" + host + ":" + std::to_string(port) + "/\n");
  std::fflush(out);
}

// The index, built while the server already answers (from the files until it is ready), within
// --index-memory; its state told to the site's /api/status and its end to stderr. Gives up when
// `stopping` is set or the folder changes.
void build_index(serve::Site& site, const dataset::DataDir& dir, const ServeOptions& options,
                 int threads, const std::atomic<bool>& stopping, std::FILE* err) {
  const auto start = std::chrono::steady_clock::now();
  auto seconds = [&start] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  const uint64_t limit = static_cast<uint64_t>(options.index_memory_mb) << 20;
  try {
    const std::vector<dataset::PrepareStep> steps = {
        analysis::NoiseBuilder::prepare_step(), audit::audit_step(audit::folder_references(dir)),
        query::techniques_step(), analysis::near_duplicate_step()};
    uint64_t stopped_at = 0;
    std::shared_ptr<const dataset::Resident> resident = dataset::Resident::build(
        dir, steps, threads, limit,
        [&](uint64_t rows) {
          site.set_status({"building", rows, 0, seconds(), ""});
          return !stopping.load() && !site.stale();
        },
        &stopped_at);
    if (stopping || site.stale()) return;
    if (resident == nullptr) {
      site.set_status({"over the limit", stopped_at, limit, seconds(), ""});
      say(err, "kbdata: note: the index would pass --index-memory " +
                   std::to_string(options.index_memory_mb) + " MB after " +
                   std::to_string(stopped_at) + " rows; pages read the files (slower)\n");
      return;
    }
    serve::IndexStatus ready{"warming", resident->rows(), resident->bytes(), seconds(), ""};
    site.set_resident(std::move(resident), ready);
    ::malloc_trim(0);  // the build's batches of code, freed, go back to the system
    ready.leaderboard_bytes = site.warm(stopping);
    if (stopping || site.stale()) return;
    ready.state = "ready";
    ready.seconds = seconds();
    site.set_status(ready);
    char line[200];
    std::snprintf(line, sizeof line,
                  "kbdata: index ready: %llu rows, %.0f MB, and every leaderboard's pages "
                  "(%.1f MB), in %.1f s\n",
                  static_cast<unsigned long long>(ready.rows),
                  static_cast<double>(ready.bytes) / (1 << 20),
                  static_cast<double>(ready.leaderboard_bytes) / (1 << 20), ready.seconds);
    say(err, line);
  } catch (const std::exception& e) {
    site.set_status({"failed", 0, 0, seconds(), e.what()});
    say(err, std::string("kbdata: the index could not be built (pages read the files): ") +
                 e.what() + "\n");
  }
}

}  // namespace

void run_serve(const ServeOptions& options, std::FILE* out, std::FILE* err) {
  if (options.index_memory_mb < 0) {
    throw UsageError("--index-memory " + std::to_string(options.index_memory_mb) +
                     ": expected 0 (no index) or more MB");
  }
  if (options.port < 0 || options.port > 65535) {
    throw UsageError("--port " + std::to_string(options.port) + ": expected 0 to 65535");
  }
  const dataset::DataDir dir = open_data_dir(options.data, err);
  DataOptions data = options.data;
  data.data = dir.path;
  serve::Site site(site_options_of(dir, data));
  serve::ServerOptions server_options;
  server_options.bind = options.bind;
  server_options.port = options.port;
  server_options.data_changed = [&site] { return site.data_changed(); };
  server_options.log = [err](const std::string& line) { say(err, "kbdata: " + line + "\n"); };
  // A closed stdout or stderr, or a client gone mid-answer, must not end the server.
  ::signal(SIGPIPE, SIG_IGN);
  const sigset_t signals = stop_signals();
  ::pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  serve::Server server(server_options, load_backend());
  site.add_routes(server);
  say_where(options, dir.path, server.bind(), out, err);
  std::atomic<bool> stopping = false;
  std::thread indexer;
  if (options.index_memory_mb > 0) {
    site.set_status({"building", 0, 0, 0, "", 0});
    indexer = std::thread([&, dir] {
      build_index(site, dir, options, command_threads(data.threads), stopping, err);
    });
  }
  std::thread watcher([&server, signals] {
    int signal = 0;
    ::sigwait(&signals, &signal);
    server.stop();
  });
  auto finish = [&] {
    ::pthread_kill(watcher.native_handle(), SIGTERM);  // wakes it if the server stopped by itself
    watcher.join();
    stopping = true;
    if (indexer.joinable()) indexer.join();
  };
  try {
    server.run();
  } catch (...) {
    finish();
    throw;
  }
  finish();
}

void add_serve_command(CLI::App& app, Commands& commands) {
  auto options = std::make_shared<ServeOptions>();
  CLI::App* cmd = app.add_subcommand(
      "serve",
      "A local web explorer of the data: leaderboards with their rankings, intervals, records and\n"
      "audit flags, each submission with its code, evidence and near-duplicates; every page has a\n"
      "JSON twin under /api/ (docs/serve.md). Builds an in-memory index of the folder at start-up\n"
      "(pages answer from the files until it is ready; /api/status). Runs until interrupted");
  add_data_options(*cmd, options->data);
  cmd->add_option("--port", options->port, "Port to listen on (0: a free one, printed)")
      ->capture_default_str();
  cmd->add_option("--index-memory", options->index_memory_mb,
                  "MB the in-memory index of the rows may take (every row without its code, and "
                  "what the noise, audit and techniques made of the code); 0: no index, every page "
                  "reads the files")
      ->capture_default_str();
  cmd->add_option("--bind", options->bind,
                  "Address to listen on; anything but loopback exposes the data to the network")
      ->capture_default_str();
  cmd->footer(
      "\nExamples:\n"
      "  kbdata serve\n"
      "  kbdata serve --data ~/kernelbot --port 8080\n"
      "  kbdata serve --index-memory 0\n"
      "\nExit status: 0 stopped by a signal, 1 the data could not be read or the port bound, 2 "
      "wrong usage.");
  commands.push_back({cmd, [options] { run_serve(*options, stdout, stderr); }});
}

}  // namespace kbdata::cli
