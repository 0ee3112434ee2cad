// The hub module's pure parts: which paths may name something in the cache, the cache's folder
// names, origins (who gets the token) and the retry rules.
#include "hub/cache.h"

#include <gtest/gtest.h>

#include "hub/client.h"
#include "hub/curl_api.h"
#include "hub/environment.h"

namespace {

using namespace kbdata::hub;
using std::chrono::milliseconds;

TEST(HubCache, SafePathsAreOrdinaryRelativeNames) {
  EXPECT_TRUE(is_safe_repo_path("a.parquet"));
  EXPECT_TRUE(is_safe_repo_path("data/train/part-0.parquet"));
  EXPECT_TRUE(is_safe_repo_path(".gitattributes"));
  EXPECT_TRUE(is_safe_repo_path("a..b"));
  for (const char* bad : {"", "/etc/passwd", "../x", "a/../../x", "a/..", "./a", "a/./b", "a//b",
                          "a/", "a\\..\\b", "C:\\x", "a\nb", "a\x7f"}) {
    EXPECT_FALSE(is_safe_repo_path(bad)) << bad;
  }
  EXPECT_FALSE(is_safe_repo_path(std::string(1025, 'a')));
}

// Names as the hub's own client accepts them (huggingface_hub's validate_repo_id): nothing a URL
// or a folder name would have to escape.
TEST(HubCache, RepoIdsAndHashes) {
  for (const char* good : {"GPUMODE/kernelbot-data", "a/b", "_a/b_", "a.b-c_d/E.F-9", "0/0"}) {
    EXPECT_TRUE(is_valid_repo_id(good)) << good;
  }
  EXPECT_TRUE(is_valid_repo_id(std::string(96, 'a') + "/" + std::string(96, 'b')));
  for (const char* bad : {"GPUMODE",    "a/b/c", "../x",  "a--b/c", "/a",    "a/",     "a b/c",
                          "a/b c",      "a/b?c", "a/b#c", "a/b%41", "a/b+c", "a/b:c",  "a/b\\c",
                          "\xc3\xa9/b", ".a/b",  "a/b.",  "-a/b",   "a/b-",  "a..b/c", "a/b\n"}) {
    EXPECT_FALSE(is_valid_repo_id(bad)) << bad;
  }
  EXPECT_FALSE(is_valid_repo_id(std::string(97, 'a') + "/b"));
  EXPECT_TRUE(is_hex(std::string(40, 'a'), 40));
  EXPECT_FALSE(is_hex(std::string(40, 'A'), 40));
  EXPECT_FALSE(is_hex(std::string(39, 'a'), 40));
}

TEST(HubCache, FolderNamesFollowTheHubsLayout) {
  RepoCache cache("/c", "my-org/my-data");
  EXPECT_EQ(cache.folder(), "/c/datasets--my-org--my-data");
  EXPECT_EQ(cache.blob_path("ab"), "/c/datasets--my-org--my-data/blobs/ab");
  EXPECT_EQ(cache.snapshot_path("0123", "d/f"), "/c/datasets--my-org--my-data/snapshots/0123/d/f");
}

TEST(HubEnvironment, OriginsCompareSchemeHostAndPort) {
  EXPECT_EQ(url_origin("https://huggingface.co/api/x"), "https://huggingface.co:443");
  EXPECT_EQ(url_origin("HTTPS://HuggingFace.co:443/x?y"), "https://huggingface.co:443");
  EXPECT_EQ(url_origin("http://127.0.0.1:8080/a"), "http://127.0.0.1:8080");
  EXPECT_NE(url_origin("http://127.0.0.1:8080/a"), url_origin("http://127.0.0.1:8081/a"));
  EXPECT_EQ(url_origin("https://user@cdn.example/x"), "https://cdn.example:443");
}

TEST(HubRetry, RateLimitWaitsItsResetPlusOneSecond) {
  RetryBudget budget(milliseconds(1000), std::chrono::seconds(600));
  std::string why;
  auto wait = budget.next_wait(429, {{"ratelimit", "\"api\";r=0;t=55"}}, 1, why);
  ASSERT_TRUE(wait);
  EXPECT_EQ(*wait, milliseconds(56000));
  wait = budget.next_wait(429, {{"retry-after", "7"}}, 1, why);
  ASSERT_TRUE(wait);
  EXPECT_EQ(*wait, milliseconds(7000));
  EXPECT_EQ(budget.retries(), 2);
}

TEST(HubRetry, BacksOffOneTwoFourEightAndStopsAfterFiveTries) {
  RetryBudget budget(milliseconds(1000), std::chrono::seconds(600));
  std::string why;
  EXPECT_EQ(budget.next_wait(503, {}, 1, why), milliseconds(1000));
  EXPECT_EQ(budget.next_wait(503, {}, 2, why), milliseconds(2000));
  EXPECT_EQ(budget.next_wait(503, {}, 3, why), milliseconds(4000));
  EXPECT_EQ(budget.next_wait(503, {}, 4, why), milliseconds(8000));
  EXPECT_FALSE(budget.next_wait(503, {}, 5, why));
  EXPECT_EQ(why, "gave up after 5 tries");
}

TEST(HubRetry, AllWaitsStayUnderTheCap) {
  RetryBudget budget(milliseconds(1000), std::chrono::seconds(60));
  std::string why;
  EXPECT_TRUE(budget.next_wait(429, {{"retry-after", "50"}}, 1, why));
  EXPECT_FALSE(budget.next_wait(429, {{"retry-after", "20"}}, 1, why));
  EXPECT_NE(why.find("60 s retry budget"), std::string::npos) << why;
  EXPECT_TRUE(RetryBudget::retryable(0));
  EXPECT_TRUE(RetryBudget::retryable(408));
  EXPECT_FALSE(RetryBudget::retryable(404));
  EXPECT_FALSE(RetryBudget::retryable(403));
}

// A transport failure is retried only when another try may change it.
TEST(HubRetry, OnlyTransientTransportFailuresAreRetried) {
  for (CURLcode code : {CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_OPERATION_TIMEDOUT,
                        CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE,
                        CURLE_HTTP2_STREAM, CURLE_SSL_CONNECT_ERROR}) {
    EXPECT_TRUE(transient_failure(code)) << code;
  }
  for (CURLcode code : {CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL, CURLE_WRITE_ERROR,
                        CURLE_PEER_FAILED_VERIFICATION, CURLE_TOO_MANY_REDIRECTS,
                        CURLE_ABORTED_BY_CALLBACK, CURLE_OUT_OF_MEMORY}) {
    EXPECT_FALSE(transient_failure(code)) << code;
  }
  RetryBudget budget(milliseconds(1), std::chrono::seconds(60));
  int tries = 0;
  uint64_t at_failure = 0;
  std::string reason;
  EXPECT_FALSE(budget.after_failed_try(true, false, "URL using bad/illegal format", 0, 0, 10,
                                       "http://h:80", {}, tries, at_failure, reason));
  EXPECT_EQ(reason, "URL using bad/illegal format from http://h:80");
  EXPECT_TRUE(budget.after_failed_try(true, true, "Couldn't connect to server", 0, 0, 10,
                                      "http://h:80", {}, tries, at_failure, reason));
}

TEST(HubRedirects, OnlyToHttpAndHttps) {
  EXPECT_EQ(redirect_refusal("https://cdn.example/x?sig=1"), "");
  EXPECT_EQ(redirect_refusal("HTTP://h/"), "");
  EXPECT_EQ(redirect_refusal("file:///etc/passwd"),
            "a redirect to 'file:///etc/passwd', which is not an http:// or https:// URL");
  EXPECT_NE(redirect_refusal("ftp://h/x"), "");
  EXPECT_NE(redirect_refusal("/relative/path"), "");  // libcurl resolves relative ones first
}

}  // namespace
