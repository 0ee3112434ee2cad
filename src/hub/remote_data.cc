#include "hub/remote_data.h"

#include <sys/stat.h>

#include <algorithm>
#include <functional>
#include <utility>

#include "common/error.h"
#include "hub/cache.h"
#include "hub/environment.h"
#include "hub/remote_file.h"

namespace kbdata::hub {
namespace {

constexpr const char* kForms =
    "hf://datasets/OWNER/NAME[@REVISION][/FOLDER] or hf://datasets/OWNER/NAME[@REVISION]/"
    "PATH.parquet";

std::string percent_decode(const std::string& text, bool& ok) {
  std::string out;
  ok = true;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    auto digit = [](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      if (c >= 'A' && c <= 'F') return c - 'A' + 10;
      return -1;
    };
    if (i + 2 >= text.size() || digit(text[i + 1]) < 0 || digit(text[i + 2]) < 0) {
      ok = false;
      return out;
    }
    out += static_cast<char>(digit(text[i + 1]) * 16 + digit(text[i + 2]));
    i += 2;
  }
  return out;
}

bool is_parquet_name(const std::string& path) {
  const std::string name = path.substr(path.rfind('/') + 1);
  return name.size() > 8 && name.compare(name.size() - 8, 8, ".parquet") == 0 && name[0] != '.';
}

// The folder part of `path` ("" at the top level).
std::string folder_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

bool regular_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool is_folder(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string address_of(const HfAddress& a, const std::string& commit, const std::string& path) {
  return "hf://datasets/" + a.repo + "@" + commit + (path.empty() ? "" : "/" + path);
}

// The hub's view of one address: its environment, the cache, and the commit.
struct Resolved {
  HubEnvironment environment;
  std::string commit;
  std::optional<std::vector<std::string>> files;  // from the revision's answer, when online
};

void check_token(const HubEnvironment& environment) {
  if (environment.token &&
      std::any_of(environment.token->begin(), environment.token->end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; })) {
    throw UsageError("the hub token holds control characters");
  }
}

// Offline: the commit the cache has for the revision, without a request.
std::string offline_commit(const HfAddress& a, const RepoCache& cache) {
  if (is_hex(a.revision, 40)) return a.revision;
  if (auto commit = cache.read_ref(a.revision)) return *commit;
  throw IoError("offline (HF_HUB_OFFLINE is set) and the cache holds no revision '" + a.revision +
                "' of " + a.repo + " (" + cache.folder() + ")");
}

// Every file of `commit` whose path satisfies `keep`, from the tree, with its cached blob if any.
std::vector<RemoteSource::Entry> tree_entries(HubClient& client, const RepoCache& cache,
                                              const HfAddress& a, const Resolved& r,
                                              const std::function<bool(const TreeFile&)>& keep) {
  std::vector<RemoteSource::Entry> out;
  const std::string& commit = r.commit;
  for (TreeFile& file : client.list_tree(commit, r.files ? &*r.files : nullptr)) {
    if (!keep(file)) continue;
    RemoteSource::Entry entry;
    entry.address = address_of(a, commit, file.path);
    if (cache.has_blob(file.etag, file.size)) entry.local = cache.blob_path(file.etag);
    entry.file = std::move(file);
    out.push_back(std::move(entry));
  }
  return out;
}

// Forwards to a file of a session, keeping the session alive.
class SessionFile final : public RandomAccessFile {
 public:
  SessionFile(std::shared_ptr<RemoteSession> session, std::unique_ptr<RandomAccessFile> file)
      : session_(std::move(session)), file_(std::move(file)) {}
  ~SessionFile() override {
    file_.reset();
    session_.reset();  // the last file of a one-file session reports its totals here
  }
  [[nodiscard]] uint64_t size() const override { return file_->size(); }
  void read_at(uint64_t offset, std::span<uint8_t> out) override { file_->read_at(offset, out); }
  void will_read(std::span<const ByteRange> ranges) override { file_->will_read(ranges); }
  [[nodiscard]] bool remote() const override { return file_->remote(); }
  [[nodiscard]] const std::string& name() const override { return file_->name(); }

 private:
  std::shared_ptr<RemoteSession> session_;
  std::unique_ptr<RandomAccessFile> file_;
};

}  // namespace

bool is_hf_url(const std::string& text) { return text.rfind("hf://", 0) == 0; }

HfAddress parse_hf_url(const std::string& url) {
  const std::string prefix = "hf://datasets/";
  if (url.rfind(prefix, 0) != 0) {
    throw UsageError("'" + printable(url) + "' is not a data set address (" + kForms +
                     "; kbdata reads data sets, not models or spaces)");
  }
  std::string rest = url.substr(prefix.size());
  while (!rest.empty() && rest.back() == '/') rest.pop_back();
  HfAddress out;
  const size_t owner_end = rest.find('/');
  if (owner_end == std::string::npos) {
    throw UsageError("'" + printable(url) + "' names no data set (" + kForms + ")");
  }
  const size_t name_end = rest.find('/', owner_end + 1);
  std::string name_part = rest.substr(
      owner_end + 1, name_end == std::string::npos ? std::string::npos : name_end - owner_end - 1);
  out.path = name_end == std::string::npos ? "" : rest.substr(name_end + 1);
  out.revision = "main";
  if (const size_t at = name_part.find('@'); at != std::string::npos) {
    bool ok = false;
    out.revision = percent_decode(name_part.substr(at + 1), ok);
    if (!ok || !is_safe_repo_path(out.revision)) {
      throw UsageError("'" + printable(url) + "': '" + printable(name_part.substr(at + 1)) +
                       "' is not a revision name");
    }
    name_part = name_part.substr(0, at);
  }
  out.repo = rest.substr(0, owner_end) + "/" + name_part;
  if (!is_valid_repo_id(out.repo)) {
    throw UsageError("'" + printable(url) + "' names no data set (" + kForms + ")");
  }
  if (!out.path.empty() && !is_safe_repo_path(out.path)) {
    throw UsageError("'" + printable(url) + "': '" + printable(out.path) +
                     "' is not a path inside the data set");
  }
  return out;
}

RemoteSource::RemoteSource(std::shared_ptr<RemoteSession> session, std::vector<Entry> entries)
    : session_(std::move(session)), entries_(std::move(entries)) {}

std::unique_ptr<RandomAccessFile> RemoteSource::open(const std::string& address) const {
  for (const Entry& e : entries_) {
    if (e.address != address) continue;
    if (e.local) {
      auto file = LocalFile::open(*e.local);
      if (file->size() == e.file.size) return file;
    }
    return session_->open(e.file, e.address);
  }
  IoError error("not a file of this data set's commit");
  error.locate_file(address);
  throw error;
}

void RemoteSource::prefetch_footers() const {
  std::vector<std::unique_ptr<RandomAccessFile>> opened;
  std::vector<RandomAccessFile*> files;
  for (const Entry& e : entries_) {
    if (e.local) continue;
    opened.push_back(session_->open(e.file, e.address));
    files.push_back(opened.back().get());
  }
  if (!files.empty()) session_->prefetch_footers(files);
}

namespace {

Resolved resolve(const HfAddress& a, RepoCache& cache, const RemoteOptions& options,
                 HubEnvironment environment, bool want_files) {
  Resolved out;
  check_token(environment);
  if (environment.offline) {
    out.commit = offline_commit(a, cache);
  } else {
    RetryBudget budget(RetryBudget::default_base(), RetryBudget::kCap);
    HubClient client(environment, a.repo, budget);
    if (want_files) {
      RevisionInfo info = client.revision_info(a.revision);
      out.commit = std::move(info.commit);
      out.files = std::move(info.files);
    } else {
      out.commit = client.resolve_revision(a.revision);
    }
    if (options.log != nullptr && out.commit != a.revision) {
      std::fprintf(options.log, "kbdata: hub: %s@%s is commit %s\n", a.repo.c_str(),
                   a.revision.c_str(), out.commit.c_str());
    }
  }
  out.environment = std::move(environment);
  return out;
}

}  // namespace

RemoteData open_remote_data(const std::string& url, const RemoteOptions& options, bool list_only) {
  const HfAddress a = parse_hf_url(url);
  HubEnvironment environment = read_environment(std::nullopt);
  RepoCache cache(environment.cache_root, a.repo);
  Resolved r = resolve(a, cache, options, std::move(environment), !list_only);
  RemoteData out;
  out.commit = r.commit;
  out.label = address_of(a, r.commit, a.path);
  const std::string snapshot_folder =
      cache.snapshot_folder(r.commit) + (a.path.empty() ? "" : "/" + a.path);
  auto in_folder = [&](const std::string& path) {
    return folder_of(path) == a.path && is_parquet_name(path);
  };

  if (r.environment.offline) {
    if (!is_folder(snapshot_folder)) {
      throw IoError("offline (HF_HUB_OFFLINE is set) and the cache holds no snapshot of " + a.repo +
                    "@" + r.commit + (a.path.empty() ? "" : " with the folder " + a.path));
    }
    out.folder = snapshot_folder;
    return out;
  }
  if (!list_only && r.files) {
    bool complete = true;
    for (const std::string& path : *r.files) {
      if (in_folder(path) && !regular_file(cache.snapshot_path(r.commit, path))) complete = false;
    }
    if (complete && is_folder(snapshot_folder)) {
      if (options.log != nullptr) {
        std::fprintf(options.log, "kbdata: hub: the cache holds every file: reading %s\n",
                     snapshot_folder.c_str());
      }
      out.folder = snapshot_folder;
      return out;
    }
  }
  auto session = std::make_shared<RemoteSession>(r.environment, a.repo, r.commit, options.log);
  std::vector<RemoteSource::Entry> entries = tree_entries(
      session->client(), cache, a, r, [&](const TreeFile& f) { return in_folder(f.path); });
  if (options.log != nullptr) {
    int local = 0;
    for (const auto& e : entries) local += e.local ? 1 : 0;
    std::fprintf(options.log,
                 "kbdata: hub: %zu *.parquet file(s) in %s: %d in the cache, %zu read remotely\n",
                 entries.size(), out.label.c_str(), local, entries.size() - local);
  }
  for (const auto& e : entries) out.paths.push_back(e.address);
  out.source = std::make_shared<RemoteSource>(std::move(session), std::move(entries));
  if (!list_only) out.source->prefetch_footers();
  return out;
}

std::unique_ptr<RandomAccessFile> open_remote_file(const std::string& url,
                                                   const RemoteOptions& options) {
  const HfAddress a = parse_hf_url(url);
  if (a.path.empty()) {
    throw UsageError("'" + printable(url) + "' names a data set, not one of its files (" + kForms +
                     ")");
  }
  HubEnvironment environment = read_environment(std::nullopt);
  RepoCache cache(environment.cache_root, a.repo);
  Resolved r = resolve(a, cache, options, std::move(environment), true);
  const std::string snapshot = cache.snapshot_path(r.commit, a.path);
  if (regular_file(snapshot)) return LocalFile::open(snapshot);
  if (r.environment.offline) {
    IoError error("offline (HF_HUB_OFFLINE is set) and the cache does not hold this file");
    error.locate_file(address_of(a, r.commit, a.path));
    throw error;
  }
  auto session = std::make_shared<RemoteSession>(r.environment, a.repo, r.commit, options.log);
  std::vector<RemoteSource::Entry> entries = tree_entries(
      session->client(), cache, a, r, [&](const TreeFile& f) { return f.path == a.path; });
  if (entries.empty()) {
    throw UsageError(a.repo + "@" + r.commit + " has no file '" + a.path + "'");
  }
  if (entries[0].local) return LocalFile::open(*entries[0].local);
  auto file = session->open(entries[0].file, entries[0].address);
  session->prefetch_footers({file.get()});
  return std::make_unique<SessionFile>(std::move(session), std::move(file));
}

}  // namespace kbdata::hub
