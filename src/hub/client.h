// Talking to the hub: requests with the hub's retry rules, the revision and tree endpoints
// (docs/hub.md, "Protocol" and "Retries").
//
//   RetryBudget   when to try again after a failure, and when to give up: 408, 429, 500, 502,
//                 503, 504 and transport errors are retried, at most kMaxTries times per request;
//                 a 429 waits what the server asks (RateLimit t=, else Retry-After), the others
//                 back off 1, 2, 4, 8 s; all waits of one pull together stay under a cap
//   HubClient     GETs JSON from the hub (the token goes to the hub's origin only, redirects are
//                 followed by hand so it never leaves), resolves a revision to its commit once
//                 and lists the commit's tree, every page
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hub/environment.h"

namespace kbdata::hub {

// Response headers, names lower-cased (the last value of a repeated header).
using Headers = std::map<std::string, std::string>;

class RetryBudget {
 public:
  static constexpr int kMaxTries = 5;
  // The most one command waits in all.
  static constexpr std::chrono::seconds kCap{600};

  // The first backoff: 1 s, or $KBDATA_HUB_BACKOFF_MS (tests).
  [[nodiscard]] static std::chrono::milliseconds default_base();

  // `base` is the first backoff (1 s; $KBDATA_HUB_BACKOFF_MS sets it for tests), `cap` the most
  // one pull may spend waiting in all.
  RetryBudget(std::chrono::milliseconds base, std::chrono::seconds cap);

  // True for the statuses worth another try (0 stands for a transport error that
  // transient_failure() says another try may change).
  [[nodiscard]] static bool retryable(long status);

  // The wait before try `tries` + 1 after a failure with `status` and `headers`, charged to the
  // budget; or, when no try is left or the wait does not fit in the budget, nullopt and `why`
  // says which.
  [[nodiscard]] std::optional<std::chrono::milliseconds> next_wait(long status,
                                                                   const Headers& headers,
                                                                   int tries, std::string& why);

  // A try of a transfer of file bytes failed (`transport_failed` with libcurl's `transport`
  // message, `transient` when another try may change it (transient_failure), else the answer's
  // `status`), having brought `received` of `expected` bytes; `tries`
  // and `received_at_failure` are the transfer's count of failed tries (restarted by a try that
  // brought bytes) and the bytes it had then. Returns the wait before the next try, or nullopt
  // when the transfer fails for good; `reason` is then the one-line error (naming `origin` and,
  // for a final status, what it means).
  [[nodiscard]] std::optional<std::chrono::milliseconds> after_failed_try(
      bool transport_failed, bool transient, const std::string& transport, long status,
      uint64_t received, uint64_t expected, const std::string& origin, const Headers& headers,
      int& tries, uint64_t& received_at_failure, std::string& reason);

  [[nodiscard]] int retries() const { return retries_; }

 private:
  std::chrono::milliseconds base_;
  std::chrono::milliseconds cap_;
  std::chrono::milliseconds spent_{0};
  int retries_ = 0;
};

// One file of a commit's tree.
struct TreeFile {
  std::string path;  // checked: is_safe_repo_path
  uint64_t size = 0;
  std::string etag;  // lfs.oid (sha256, 64 hex) for LFS files, else the git blob sha1 (40 hex)
  bool lfs = false;
};

// What the revision endpoint says of a revision.
struct RevisionInfo {
  std::string commit;  // 40 hex digits
  // The files of the commit ("siblings", their paths), when the answer lists them.
  std::optional<std::vector<std::string>> files;
};

class HubClient {
 public:
  HubClient(HubEnvironment environment, std::string repo, RetryBudget& budget);

  [[nodiscard]] const HubEnvironment& environment() const { return environment_; }
  [[nodiscard]] const std::string& repo() const { return repo_; }

  // The commit `revision` names. Throws Error with one line naming the revision on failure.
  [[nodiscard]] std::string resolve_revision(const std::string& revision);
  // The same request, with the file list the answer carries.
  [[nodiscard]] RevisionInfo revision_info(const std::string& revision);

  // Every file of `commit`'s tree, all pages. The pages are followed while each brings entries
  // not listed before: a page whose URL was already followed, an empty page that links on, or a
  // path listed twice is a FormatError, and so is a tree of more entries than `commit_files` (the
  // files the revision's answer listed, when it did) and their folders can make. Throws
  // FormatError for an entry whose path would escape the cache or whose identity is not a hash,
  // Error for a page that cannot be fetched.
  [[nodiscard]] std::vector<TreeFile> list_tree(
      const std::string& commit, const std::vector<std::string>* commit_files = nullptr);

  // The resolve URL of `path` at `commit` (segments percent-encoded).
  [[nodiscard]] std::string resolve_url(const std::string& commit, const std::string& path) const;

  // True when `url` is on the hub's own origin: the only one that gets the token.
  [[nodiscard]] bool is_hub_url(const std::string& url) const;

  // The request headers for `url`: the token when it goes to the hub, and `extra`.
  [[nodiscard]] std::vector<std::string> request_headers(const std::string& url) const;

  [[nodiscard]] RetryBudget& budget() { return budget_; }

 private:
  // GET `url`, with retries; the body, and the next page's URL from a Link header if any.
  std::string get(const std::string& url, const std::string& what, std::string* next);

  HubEnvironment environment_;
  std::string repo_;
  std::string hub_origin_;
  RetryBudget& budget_;
};

// Why kbdata does not follow a redirect to `location`, or "" when it does: only to http:// and
// https:// URLs (a redirect to file://, ftp://, ... is refused at once, never retried).
[[nodiscard]] std::string redirect_refusal(const std::string& location);

// `text` with every byte outside printable ASCII as '?', for messages about what a server sent.
[[nodiscard]] std::string printable(const std::string& text);

// Parses a header block line ("Name: value\r\n") into `headers`; a status line clears them.
void add_header_line(const char* data, size_t size, Headers& headers);

}  // namespace kbdata::hub
