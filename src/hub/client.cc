#include "hub/client.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "common/error.h"
#include "common/text.h"
#include "hub/cache.h"
#include "hub/curl_api.h"

namespace kbdata::hub {
namespace {

using std::chrono::milliseconds;

constexpr int kMaxRedirects = 10;
// The most one JSON answer (a revision, a tree page) may hold: the hub's pages of 1000 entries
// are about 300 KB.
constexpr size_t kMaxJsonBytes = 64u << 20;

// The seconds in `t=N` of a RateLimit header ("bucket";r=0;t=55), or nullopt.
std::optional<long> rate_limit_reset(const std::string& value) {
  for (size_t at = value.find("t="); at != std::string::npos; at = value.find("t=", at + 1)) {
    if (at > 0 && value[at - 1] != ';' && value[at - 1] != ' ') continue;
    size_t end = at + 2;
    long seconds = 0;
    while (end < value.size() && std::isdigit(static_cast<unsigned char>(value[end])) &&
           seconds < 1000000000) {
      seconds = seconds * 10 + (value[end++] - '0');
    }
    if (end > at + 2) return seconds;
  }
  return std::nullopt;
}

// Seconds from a Retry-After header: an integer, or an HTTP date; nullopt when neither.
std::optional<long> retry_after(const std::string& value) {
  if (!value.empty() && std::all_of(value.begin(), value.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c));
      })) {
    return value.size() > 9 ? 1000000000L : std::stol(value);
  }
  const time_t when = curl().curl_getdate(value.c_str(), nullptr);
  if (when < 0) return std::nullopt;
  return std::max<long>(0, static_cast<long>(when - std::time(nullptr)));
}

// A JSON answer being received; `over_cap` when it passed kMaxJsonBytes (the transfer is then
// abandoned: a retry would bring the same answer).
struct JsonBody {
  std::string bytes;
  bool over_cap = false;
};

size_t collect_body(char* data, size_t, size_t size, void* user) {
  auto* body = static_cast<JsonBody*>(user);
  if (body->bytes.size() + size > kMaxJsonBytes) {
    body->over_cap = true;
    return 0;
  }
  body->bytes.append(data, size);
  return size;
}

size_t collect_header(char* data, size_t, size_t size, void* user) {
  add_header_line(data, size, *static_cast<Headers*>(user));
  return size;
}

// The URL in `Link: <URL>; rel="next"`, or "".
std::string next_link(const Headers& headers) {
  auto it = headers.find("link");
  if (it == headers.end()) return "";
  const std::string& link = it->second;
  for (size_t open = link.find('<'); open != std::string::npos; open = link.find('<', open + 1)) {
    const size_t close = link.find('>', open);
    if (close == std::string::npos) break;
    size_t end = link.find(',', close);
    if (end == std::string::npos) end = link.size();
    const std::string params = link.substr(close + 1, end - close - 1);
    if (params.find("rel=\"next\"") != std::string::npos ||
        params.find("rel=next") != std::string::npos) {
      return link.substr(open + 1, close - open - 1);
    }
  }
  return "";
}

struct EasyDeleter {
  void operator()(CURL* easy) const { curl().curl_easy_cleanup(easy); }
};
struct ListDeleter {
  void operator()(curl_slist* list) const { curl().curl_slist_free_all(list); }
};

}  // namespace

std::string redirect_refusal(const std::string& location) {
  const size_t colon = location.find("://");
  std::string scheme = colon == std::string::npos ? "" : location.substr(0, colon);
  for (char& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (scheme == "http" || scheme == "https") return "";
  return "a redirect to '" + printable(location) + "', which is not an http:// or https:// URL";
}

std::string printable(const std::string& text) {
  std::string out = text.substr(0, 200);
  for (char& c : out) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f) c = '?';
  }
  return out;
}

void add_header_line(const char* data, size_t size, Headers& headers) {
  std::string line(data, size);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  if (line.rfind("HTTP/", 0) == 0) {
    headers.clear();
    return;
  }
  const size_t colon = line.find(':');
  if (colon == std::string::npos) return;
  std::string name = line.substr(0, colon);
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  size_t value_start = line.find_first_not_of(" \t", colon + 1);
  headers[name] = value_start == std::string::npos ? "" : line.substr(value_start);
}

milliseconds RetryBudget::default_base() {
  const char* value = std::getenv("KBDATA_HUB_BACKOFF_MS");
  if (value != nullptr && *value != '\0') {
    char* end = nullptr;
    const long ms = std::strtol(value, &end, 10);
    if (*end == '\0' && ms >= 0 && ms <= 60000) return milliseconds(ms);
  }
  return milliseconds(1000);
}

RetryBudget::RetryBudget(milliseconds base, std::chrono::seconds cap) : base_(base), cap_(cap) {}

bool RetryBudget::retryable(long status) {
  return status == 0 || status == 408 || status == 429 || status == 500 || status == 502 ||
         status == 503 || status == 504;
}

std::optional<milliseconds> RetryBudget::after_failed_try(
    bool transport_failed, bool transient, const std::string& transport, long status,
    uint64_t received, uint64_t expected, const std::string& origin, const Headers& headers,
    int& tries, uint64_t& received_at_failure, std::string& reason) {
  long kind = status;
  if (transport_failed) {
    reason = transport;
    kind = transient ? 0 : -1;
  } else if (status == 200 || status == 206) {
    reason = "the body ended after " + std::to_string(received) + " of " +
             std::to_string(expected) + " bytes";
    kind = 0;
  } else {
    reason = "HTTP " + std::to_string(status);
  }
  reason += " from " + origin;
  if (!retryable(kind)) {
    if (status == 401) reason += " (the hub refused the token, or a token is needed)";
    if (status == 404) reason += " (no such file at this commit)";
    if (status == 416) reason += " (the range lies outside the file the server has)";
    return std::nullopt;
  }
  if (received > received_at_failure) tries = 0;  // that try brought bytes
  received_at_failure = received;
  std::string why;
  auto wait = next_wait(kind, headers, ++tries, why);
  if (!wait) reason += "; " + why;
  return wait;
}

std::optional<milliseconds> RetryBudget::next_wait(long status, const Headers& headers, int tries,
                                                   std::string& why) {
  if (tries >= kMaxTries) {
    why = "gave up after " + std::to_string(tries) + " tries";
    return std::nullopt;
  }
  // The server's own wait counts for a 429 or 503, the statuses Retry-After is defined for.
  std::optional<long> asked;
  if (status == 429 || status == 503) {
    if (auto it = headers.find("ratelimit"); it != headers.end()) {
      if (auto t = rate_limit_reset(it->second)) asked = *t + 1;
    }
    if (!asked) {
      if (auto it = headers.find("retry-after"); it != headers.end()) {
        asked = retry_after(it->second);
      }
    }
  }
  milliseconds wait = asked ? milliseconds(*asked * 1000)
                            : std::min(base_ * (1 << std::min(tries - 1, 3)), base_ * 8);
  if (spent_ + wait > cap_) {
    const std::string budget =
        std::to_string(std::chrono::duration_cast<std::chrono::seconds>(cap_).count()) +
        " s retry budget";
    why = asked ? "the server asks to wait " + std::to_string(*asked) +
                      " s, more than is left of kbdata's " + budget
                : "kbdata's " + budget + " is spent";
    return std::nullopt;
  }
  spent_ += wait;
  ++retries_;
  return wait;
}

HubClient::HubClient(HubEnvironment environment, std::string repo, RetryBudget& budget)
    : environment_(std::move(environment)),
      repo_(std::move(repo)),
      hub_origin_(url_origin(environment_.endpoint)),
      budget_(budget) {}

bool HubClient::is_hub_url(const std::string& url) const { return url_origin(url) == hub_origin_; }

std::vector<std::string> HubClient::request_headers(const std::string& url) const {
  std::vector<std::string> out;
  if (environment_.token && is_hub_url(url)) {
    out.push_back("Authorization: Bearer " + *environment_.token);
  }
  return out;
}

std::string HubClient::resolve_url(const std::string& commit, const std::string& path) const {
  std::string url = environment_.endpoint + "/datasets/" + repo_ + "/resolve/" + commit + "/";
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    if (start > 0) url += '/';
    append_percent_encoded(url, std::string_view(path).substr(start, end - start));
    start = end + 1;
  }
  return url;
}

std::string HubClient::get(const std::string& first_url, const std::string& what,
                           std::string* next) {
  const CurlApi& api = curl();
  std::string url = first_url;
  int tries = 0;
  int redirects = 0;
  for (;;) {
    std::unique_ptr<CURL, EasyDeleter> easy(api.curl_easy_init());
    if (!easy) throw IoError("libcurl could not create a request");
    std::unique_ptr<curl_slist, ListDeleter> list;
    for (const std::string& header : request_headers(url)) {
      list.reset(api.curl_slist_append(list.release(), header.c_str()));
    }
    JsonBody body;
    Headers headers;
    CURL* h = easy.get();
    api.curl_easy_setopt(h, CURLOPT_URL, url.c_str());
    api.curl_easy_setopt(h, CURLOPT_HTTPHEADER, list.get());
    api.curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    api.curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    api.curl_easy_setopt(h, CURLOPT_USERAGENT, "kbdata");
    api.curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, 30L);
    api.curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
    api.curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, 60L);
    api.curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
    api.curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, &collect_body);
    api.curl_easy_setopt(h, CURLOPT_WRITEDATA, &body);
    api.curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, &collect_header);
    api.curl_easy_setopt(h, CURLOPT_HEADERDATA, &headers);
    const CURLcode code = api.curl_easy_perform(h);
    long status = 0;
    api.curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    ++tries;
    if (body.over_cap) {
      throw FormatError(what + ": the answer from " + url_origin(url) + " passes " +
                        std::to_string(kMaxJsonBytes >> 20) +
                        " MiB, the most kbdata reads of one JSON answer");
    }
    if (code == CURLE_OK && status >= 300 && status < 400) {
      char* location = nullptr;
      api.curl_easy_getinfo(h, CURLINFO_REDIRECT_URL, &location);
      if (location == nullptr || ++redirects > kMaxRedirects) {
        throw IoError(what + ": too many or broken redirects from " + url_origin(url));
      }
      if (const std::string refusal = redirect_refusal(location); !refusal.empty()) {
        throw IoError(what + ": " + refusal + " (HTTP " + std::to_string(status) + " from " +
                      url_origin(url) + ")");
      }
      url = location;
      continue;
    }
    if (code == CURLE_OK && status == 200) {
      if (next != nullptr) *next = next_link(headers);
      return std::move(body.bytes);
    }
    std::string failure =
        code != CURLE_OK ? api.curl_easy_strerror(code) : "HTTP " + std::to_string(status);
    if (code != CURLE_OK ? !transient_failure(code) : !RetryBudget::retryable(status)) {
      if (status == 401) failure += " (the hub refused the token, or a token is needed)";
      if (status == 404) failure += " (no such data set, revision or file)";
      throw IoError(what + ": " + failure + " from " + url_origin(url));
    }
    std::string why;
    auto wait = budget_.next_wait(code != CURLE_OK ? 0 : status, headers, tries, why);
    if (!wait) throw IoError(what + ": " + failure + " from " + url_origin(url) + "; " + why);
    std::this_thread::sleep_for(*wait);
  }
}

std::string HubClient::resolve_revision(const std::string& revision) {
  return revision_info(revision).commit;
}

RevisionInfo HubClient::revision_info(const std::string& revision) {
  const std::string what = "revision '" + printable(revision) + "' of " + repo_;
  std::string url = environment_.endpoint + "/api/datasets/" + repo_ + "/revision/";
  append_percent_encoded(url, revision);
  const std::string body = get(url, what, nullptr);
  nlohmann::json json = nlohmann::json::parse(body, nullptr, false);
  if (!json.is_object() || !json.contains("sha") || !json["sha"].is_string() ||
      !is_hex(json["sha"].get<std::string>(), 40)) {
    throw FormatError(what + ": the hub's answer holds no commit (\"sha\": 40 hex digits)");
  }
  RevisionInfo info;
  info.commit = json["sha"].get<std::string>();
  if (json.contains("siblings") && json["siblings"].is_array()) {
    std::vector<std::string> files;
    for (const nlohmann::json& sibling : json["siblings"]) {
      if (!sibling.is_object() || !sibling.contains("rfilename") ||
          !sibling["rfilename"].is_string()) {
        return info;  // not a list kbdata understands: the tree decides
      }
      files.push_back(sibling["rfilename"].get<std::string>());
    }
    info.files = std::move(files);
  }
  return info;
}

std::vector<TreeFile> HubClient::list_tree(const std::string& commit,
                                           const std::vector<std::string>* commit_files) {
  const std::string tree = "tree of " + repo_ + "@" + commit;
  // The most entries the tree can list: the commit's files and their folders.
  std::optional<size_t> most_entries;
  std::string most_text;
  if (commit_files != nullptr) {
    std::set<std::string> folders;
    for (const std::string& path : *commit_files) {
      for (size_t slash = path.find('/'); slash != std::string::npos;
           slash = path.find('/', slash + 1)) {
        folders.insert(path.substr(0, slash));
      }
    }
    most_entries = commit_files->size() + folders.size();
    most_text = std::to_string(commit_files->size()) + " files and " +
                std::to_string(folders.size()) + " folders";
  }
  std::vector<TreeFile> files;
  std::set<std::string> followed;  // the pages' URLs
  std::set<std::string> listed;    // every entry's path
  std::string url =
      environment_.endpoint + "/api/datasets/" + repo_ + "/tree/" + commit + "?recursive=true";
  for (size_t page = 1; !url.empty(); ++page) {
    const std::string what = tree + ", page " + std::to_string(page);
    if (!followed.insert(url).second) {
      throw FormatError(what + ": the page before links back to '" + printable(url) +
                        "', a page already read");
    }
    std::string next;
    const std::string body = get(url, what, &next);
    if (!next.empty() && !is_hub_url(next)) {
      throw FormatError(what + ": the next page's link leaves the hub (" + url_origin(next) + ")");
    }
    url = next;
    nlohmann::json json = nlohmann::json::parse(body, nullptr, false);
    if (!json.is_array()) throw FormatError(what + ": not a JSON array");
    if (json.empty() && !next.empty()) {
      throw FormatError(what + ": an empty page that links to another ('" + printable(next) + "')");
    }
    for (const nlohmann::json& entry : json) {
      if (!entry.is_object() || !entry.contains("type") || !entry["type"].is_string() ||
          !entry.contains("path") || !entry["path"].is_string()) {
        throw FormatError(what + ": an entry without a type or path");
      }
      const std::string& path = entry["path"].get_ref<const std::string&>();
      if (!listed.insert(path).second) {
        throw FormatError(tree + " lists '" + printable(path) + "' twice");
      }
      if (most_entries && listed.size() > *most_entries) {
        throw FormatError(what + ": more entries than the commit's " + most_text +
                          " (as its revision lists them) can make");
      }
      if (entry["type"] != "file") continue;
      TreeFile file;
      file.path = path;
      if (!is_safe_repo_path(file.path)) {
        throw FormatError(what + ": refusing the entry '" + printable(file.path) +
                          "', whose path would leave the cache's snapshot folder");
      }
      const std::string where = what + ", '" + file.path + "'";
      if (!entry.contains("size") || !entry["size"].is_number_unsigned()) {
        throw FormatError(where + ": no size");
      }
      file.size = entry["size"].get<uint64_t>();
      if (entry.contains("lfs") && entry["lfs"].is_object()) {
        const nlohmann::json& lfs = entry["lfs"];
        if (!lfs.contains("oid") || !lfs["oid"].is_string() ||
            !is_hex(lfs["oid"].get<std::string>(), 64)) {
          throw FormatError(where + ": lfs.oid is not a sha256 (64 hex digits)");
        }
        file.etag = lfs["oid"].get<std::string>();
        file.lfs = true;
      } else {
        if (!entry.contains("oid") || !entry["oid"].is_string() ||
            !is_hex(entry["oid"].get<std::string>(), 40)) {
          throw FormatError(where + ": oid is not a git blob sha1 (40 hex digits)");
        }
        file.etag = entry["oid"].get<std::string>();
      }
      files.push_back(std::move(file));
    }
  }
  std::sort(files.begin(), files.end(),
            [](const TreeFile& a, const TreeFile& b) { return a.path < b.path; });
  return files;
}

}  // namespace kbdata::hub
