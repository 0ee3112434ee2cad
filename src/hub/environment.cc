#include "hub/environment.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/error.h"

namespace kbdata::hub {
namespace {

constexpr const char* kPublicEndpoint = "https://huggingface.co";

std::optional<std::string> env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string trim(const std::string& s) {
  const char* space = " \t\r\n";
  const size_t first = s.find_first_not_of(space);
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(space) - first + 1);
}

// The token in the file `path`, or nullopt when there is no such file or it is empty.
std::optional<std::string> read_token_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (errno == ENOENT || errno == ENOTDIR) return std::nullopt;
    IoError error(std::string("cannot read the token file: ") + std::strerror(errno));
    error.locate_file(path);
    throw error;
  }
  std::stringstream text;
  text << in.rdbuf();
  std::string token = trim(text.str());
  if (token.empty()) return std::nullopt;
  return token;
}

std::string hf_home() {
  if (auto home = env("HF_HOME")) return *home;
  if (auto xdg = env("XDG_CACHE_HOME")) return *xdg + "/huggingface";
  return env("HOME").value_or("") + "/.cache/huggingface";
}

}  // namespace

std::string url_origin(const std::string& url) {
  const size_t scheme_end = url.find("://");
  if (scheme_end == std::string::npos) return "";
  const std::string scheme = lower(url.substr(0, scheme_end));
  const size_t host_start = scheme_end + 3;
  size_t host_end = url.find_first_of("/?#", host_start);
  if (host_end == std::string::npos) host_end = url.size();
  std::string authority = lower(url.substr(host_start, host_end - host_start));
  const size_t at = authority.rfind('@');
  if (at != std::string::npos) authority = authority.substr(at + 1);
  const size_t bracket = authority.rfind(']');
  const size_t colon = authority.rfind(':');
  if (colon == std::string::npos || (bracket != std::string::npos && colon < bracket)) {
    authority += scheme == "https" ? ":443" : ":80";
  }
  return scheme + "://" + authority;
}

HubEnvironment read_environment(const std::optional<std::string>& cache_dir) {
  HubEnvironment out;
  out.endpoint = env("HF_ENDPOINT").value_or(kPublicEndpoint);
  while (!out.endpoint.empty() && out.endpoint.back() == '/') out.endpoint.pop_back();
  const std::string scheme = lower(out.endpoint.substr(0, out.endpoint.find("://")));
  if ((scheme != "http" && scheme != "https") || out.endpoint.find("://") == std::string::npos ||
      out.endpoint.size() <= scheme.size() + 3) {
    throw UsageError("HF_ENDPOINT must be an http:// or https:// URL, not '" + out.endpoint + "'");
  }

  if (auto offline = env("HF_HUB_OFFLINE")) {
    const std::string v = lower(trim(*offline));
    out.offline = v == "1" || v == "on" || v == "yes" || v == "true";
  }

  if (auto token = env("HF_TOKEN")) {
    out.token = trim(*token);
  } else if (auto path = env("HF_TOKEN_PATH")) {
    out.token = read_token_file(*path);
  } else {
    out.token = read_token_file(hf_home() + "/token");
  }
  if (out.token && out.token->empty()) out.token.reset();

  if (cache_dir) {
    out.cache_root = *cache_dir;
  } else if (auto hub_cache = env("HF_HUB_CACHE")) {
    out.cache_root = *hub_cache;
  } else {
    out.cache_root = hf_home() + "/hub";
  }
  return out;
}

}  // namespace kbdata::hub
