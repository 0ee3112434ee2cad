// What the hub's own client reads from the environment, read the same way (docs/hub.md,
// "Environment"): the endpoint, the token, offline mode and the cache folder.
#pragma once

#include <optional>
#include <string>

namespace kbdata::hub {

struct HubEnvironment {
  std::string endpoint;              // $HF_ENDPOINT without a trailing '/', or the public hub
  std::optional<std::string> token;  // $HF_TOKEN, else $HF_TOKEN_PATH's, else $HF_HOME/token
  bool offline = false;              // $HF_HUB_OFFLINE is 1, ON, YES or TRUE (any case)
  std::string cache_root;            // --cache-dir, else $HF_HUB_CACHE, $HF_HOME/hub, ...
};

// Reads the environment. `cache_dir` (--cache-dir) overrides the cache variables. Throws
// UsageError when $HF_ENDPOINT is not an http:// or https:// URL, IoError when a token file
// exists but cannot be read. The token is never part of a message.
[[nodiscard]] HubEnvironment read_environment(const std::optional<std::string>& cache_dir);

// "scheme://host[:port]" of an http(s) URL, lower-cased, with the default port made explicit, so
// two URLs can be compared for "same server" (the token goes to the hub's origin only).
[[nodiscard]] std::string url_origin(const std::string& url);

}  // namespace kbdata::hub
