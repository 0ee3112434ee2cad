#include "platform/pg_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "platform/connection.h"

namespace kbdata::testing {
namespace fs = std::filesystem;

namespace {

constexpr const char* kPassword = "kb-secret-pw";

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    throw std::runtime_error("cannot bind a free port");
  }
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

}  // namespace

ChildResult run_child(const std::vector<std::string>& argv, const std::string& as_user) {
  char out_path[] = "/tmp/kbdata-child-out-XXXXXX";
  char err_path[] = "/tmp/kbdata-child-err-XXXXXX";
  int out_fd = ::mkstemp(out_path);
  int err_fd = ::mkstemp(err_path);
  std::vector<std::string> args = argv;
  if (!as_user.empty()) {
    args.insert(args.begin(), {"/usr/sbin/runuser", "-u", as_user, "--"});
  }
  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(out_fd, 1);
    ::dup2(err_fd, 2);
    int null_fd = ::open("/dev/null", O_RDONLY);
    ::dup2(null_fd, 0);
    std::vector<char*> c;
    for (std::string& a : args) c.push_back(a.data());
    c.push_back(nullptr);
    ::execv(c[0], c.data());
    ::_exit(127);
  }
  int status = 0;
  rusage usage{};
  ::wait4(pid, &status, 0, &usage);
  ChildResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.max_rss_kb = usage.ru_maxrss;
  ::close(out_fd);
  ::close(err_fd);
  r.out = read_file(out_path);
  r.err = read_file(err_path);
  ::unlink(out_path);
  ::unlink(err_path);
  return r;
}

PgServer::PgServer() {
  if (const char* env = std::getenv("KBDATA_PG_BIN"); env != nullptr && *env != '\0') {
    bin_dir_ = env;
  } else {
    std::vector<std::string> found;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/usr/lib/postgresql", ec)) {
      if (fs::exists(e.path() / "bin" / "initdb")) found.push_back((e.path() / "bin").string());
    }
    std::sort(found.begin(), found.end());
    if (found.empty()) {
      throw std::runtime_error(
          "no PostgreSQL server in /usr/lib/postgresql/*/bin (scripts/install-deps installs it)");
    }
    bin_dir_ = found.back();
  }
  if (::geteuid() == 0) {
    user_ = "postgres";
    if (::getpwnam(user_.c_str()) == nullptr) {
      throw std::runtime_error("running as root but there is no 'postgres' user to run the server");
    }
  }
  char tmpl[] = "/tmp/kbdata-pg-XXXXXX";
  if (::mkdtemp(tmpl) == nullptr) throw std::runtime_error("mkdtemp failed");
  dir_ = tmpl;
  if (!user_.empty()) {
    passwd* pw = ::getpwnam(user_.c_str());
    if (::chown(dir_.c_str(), pw->pw_uid, pw->pw_gid) != 0) {
      throw std::runtime_error("cannot chown " + dir_);
    }
  }
  {
    std::ofstream pw(dir_ + "/pw");
    pw << kPassword << "\n";
  }
  if (!user_.empty()) {
    passwd* pw = ::getpwnam(user_.c_str());
    if (::chown((dir_ + "/pw").c_str(), pw->pw_uid, pw->pw_gid) != 0) {
      throw std::runtime_error("cannot chown the password file");
    }
  }
  ChildResult init =
      pg({bin("initdb"), "-D", dir_ + "/data", "-U", "kb", "--pwfile=" + dir_ + "/pw",
          "--auth=scram-sha-256", "-E", "UTF8", "--locale=C", "--no-sync"});
  if (init.exit_code != 0) throw std::runtime_error("initdb failed: " + init.out + init.err);
  port_ = free_port();
  start();
}

PgServer::~PgServer() {
  try {
    if (running_) stop();
  } catch (...) {
  }
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

std::string PgServer::bin(const std::string& tool) const { return bin_dir_ + "/" + tool; }

ChildResult PgServer::pg(const std::vector<std::string>& argv) const {
  return run_child(argv, user_);
}

void PgServer::start() {
  ChildResult r =
      pg({bin("pg_ctl"), "-D", dir_ + "/data", "-l", dir_ + "/log", "-w", "-t", "60", "-o",
          "-p " + std::to_string(port_) + " -k " + dir_ +
              " -c listen_addresses=127.0.0.1 -c fsync=off -c "
              "synchronous_commit=off -c full_page_writes=off",
          "start"});
  if (r.exit_code != 0) {
    throw std::runtime_error("pg_ctl start failed: " + r.out + r.err + read_file(dir_ + "/log"));
  }
  running_ = true;
}

void PgServer::stop() {
  ChildResult r = pg({bin("pg_ctl"), "-D", dir_ + "/data", "-m", "fast", "-w", "stop"});
  running_ = false;
  if (r.exit_code != 0) throw std::runtime_error("pg_ctl stop failed: " + r.out + r.err);
}

std::string PgServer::url(const std::string& db) const {
  return "postgresql://kb:" + std::string(kPassword) + "@127.0.0.1:" + std::to_string(port_) + "/" +
         db;
}

std::string PgServer::url_wrong_password(const std::string& db) const {
  return "postgresql://kb:not-the-password@127.0.0.1:" + std::to_string(port_) + "/" + db;
}

void PgServer::create_database(const std::string& db) {
  auto conn = platform::Connection::connect(url("postgres"), "kbdata test");
  conn->exec("CREATE DATABASE " + db);
}

}  // namespace kbdata::testing
