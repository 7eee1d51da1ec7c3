// The web client's files served at / by a real server on loopback (server/transport/
// static_files.h): content types, caching, the security headers, HEAD, path traversal refused,
// and the API's routes unchanged beside them.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "server/transport/static_files.h"
#include "tests/testing/http_get.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/test_server.h"

namespace melee {
namespace {

namespace fs = std::filesystem;

void Write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

constexpr const char* kIndex = "<!doctype html><title>lobby</title>";
constexpr const char* kSecret = "top-secret-outside-the-web-root";

// A server whose web root is a temporary folder with a few files, and a secret beside it.
class StaticFilesTest : public ::testing::Test {
 protected:
  StaticFilesTest() {
    Write(dir_.path() / "web" / "index.html", kIndex);
    Write(dir_.path() / "web" / "app.js", "export const x = 1;\n");
    Write(dir_.path() / "web" / "style.css", "body { margin: 0; }\n");
    Write(dir_.path() / "web" / "sdk" / "index.html", "<p>sdk</p>");
    Write(dir_.path() / "web" / ".hidden", "hidden");
    Write(dir_.path() / "secret.txt", kSecret);
    fs::create_symlink(dir_.path() / "secret.txt", dir_.path() / "web" / "link.txt");
    server::ServerConfig config;
    config.web_root = dir_.path() / "web";
    server_ = std::make_unique<testing::TestServer>(config);
  }

  testing::HttpResult Get(const std::string& target,
                          std::vector<std::pair<std::string, std::string>> headers = {}) {
    return testing::HttpGet(server_->port(), target, http::verb::get, {}, headers);
  }

  // Sends `target` as it is (no client-side normalisation) and returns the whole answer.
  testing::HttpResult Raw(const std::string& method, const std::string& target) {
    return testing::RawHttp(server_->port(), method + " " + target +
                                                 " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                                 "Connection: close\r\n\r\n");
  }

  testing::TempDir dir_;
  std::unique_ptr<testing::TestServer> server_;
};

TEST_F(StaticFilesTest, RootServesIndexHtmlWithItsHeaders) {
  const auto result = Get("/");
  ASSERT_TRUE(result.error.empty()) << result.error;
  EXPECT_EQ(result.status, 200);
  EXPECT_EQ(result.body, kIndex);
  EXPECT_EQ(result.content_type, "text/html; charset=utf-8");
  EXPECT_EQ(result.Header("Cache-Control"), "no-cache");
  EXPECT_TRUE(std::regex_match(result.Header("ETag"), std::regex("\"[0-9a-f]{32}\"")))
      << result.Header("ETag");
  EXPECT_EQ(result.Header("X-Content-Type-Options"), "nosniff");
  EXPECT_EQ(result.Header("Referrer-Policy"), "no-referrer");
}

TEST_F(StaticFilesTest, ContentSecurityPolicyIsStrict) {
  const std::string csp = Get("/").Header("Content-Security-Policy");
  EXPECT_NE(csp.find("default-src 'self'"), std::string::npos) << csp;
  EXPECT_NE(csp.find("script-src 'self'"), std::string::npos) << csp;
  EXPECT_NE(csp.find("connect-src 'self' ws://127.0.0.1 wss://127.0.0.1"), std::string::npos)
      << csp;
  EXPECT_NE(csp.find("object-src 'none'"), std::string::npos) << csp;
  EXPECT_NE(csp.find("frame-ancestors 'none'"), std::string::npos) << csp;
  EXPECT_EQ(csp.find("unsafe-inline"), std::string::npos) << csp;
  EXPECT_EQ(csp.find("unsafe-eval"), std::string::npos) << csp;
}

TEST_F(StaticFilesTest, AHostHeaderCannotAddDirectives) {
  const auto result = testing::RawHttp(
      server_->port(),
      "GET / HTTP/1.1\r\nHost: evil.example; script-src *\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(result.status, 200) << result.body;
  EXPECT_EQ(result.body.find("script-src *"), std::string::npos) << result.body;
  EXPECT_NE(result.body.find("connect-src 'self';"), std::string::npos) << result.body;
}

TEST_F(StaticFilesTest, ContentTypesFollowTheExtension) {
  EXPECT_EQ(Get("/app.js").content_type, "text/javascript; charset=utf-8");
  EXPECT_EQ(Get("/style.css").content_type, "text/css; charset=utf-8");
  EXPECT_EQ(Get("/sdk/").body, "<p>sdk</p>");
  EXPECT_EQ(server::ContentTypeFor("a.svg"), "image/svg+xml");
  EXPECT_EQ(server::ContentTypeFor("a.json"), "application/json");
  EXPECT_EQ(server::ContentTypeFor("a.unknown"), "application/octet-stream");
}

TEST_F(StaticFilesTest, IfNoneMatchWithTheETagIs304WithoutABody) {
  const std::string etag = Get("/app.js").Header("ETag");
  ASSERT_FALSE(etag.empty());
  const auto again = Get("/app.js", {{"If-None-Match", etag}});
  EXPECT_EQ(again.status, 304);
  EXPECT_TRUE(again.body.empty());
  EXPECT_EQ(again.Header("ETag"), etag);
  EXPECT_EQ(Get("/app.js", {{"If-None-Match", "\"other\""}}).status, 200);
}

TEST_F(StaticFilesTest, HeadAnswersTheHeadersOfGetWithoutTheBody) {
  const auto result = Raw("HEAD", "/");
  ASSERT_TRUE(result.error.empty()) << result.error;
  EXPECT_EQ(result.status, 200) << result.body;
  EXPECT_NE(result.body.find("Content-Length: " + std::to_string(std::string(kIndex).size())),
            std::string::npos)
      << result.body;
  EXPECT_NE(result.body.find("Content-Security-Policy: "), std::string::npos) << result.body;
  EXPECT_TRUE(result.body.ends_with("\r\n\r\n")) << result.body;  // nothing after the headers
}

TEST_F(StaticFilesTest, PathTraversalIsRefusedWith400) {
  for (const std::string target :
       {"/../secret.txt", "/%2e%2e/secret.txt", "/%2E%2E/secret.txt", "/sdk/../../secret.txt",
        "/..%2fsecret.txt", "/%2e%2e%2fsecret.txt", "/..%5csecret.txt", "/%5c..%5csecret.txt",
        "/index.html%00", "/%zz", "/./index.html"}) {
    const auto result = Raw("GET", target);
    EXPECT_EQ(result.status, 400) << target << ": " << result.body;
    EXPECT_NE(result.body.find("\"message\""), std::string::npos) << target << ": " << result.body;
    EXPECT_EQ(result.body.find(kSecret), std::string::npos) << target;
  }
  // A raw backslash: refused by the request parser or by the route, never served.
  const auto backslash = Raw("GET", "/..\\secret.txt");
  EXPECT_EQ(backslash.status, 400) << backslash.body;
  EXPECT_EQ(backslash.body.find(kSecret), std::string::npos);
}

TEST_F(StaticFilesTest, LinksOutOfTheRootAndHiddenFilesAreNotServed) {
  const auto link = Get("/link.txt");
  EXPECT_EQ(link.status, 404);
  EXPECT_EQ(link.body.find(kSecret), std::string::npos);
  EXPECT_EQ(Get("/.hidden").status, 404);
}

TEST_F(StaticFilesTest, UnknownPathsKeepTheJson404) {
  const auto result = Get("/nope.html");
  EXPECT_EQ(result.status, 404);
  EXPECT_EQ(result.content_type, "application/json");
  EXPECT_NE(result.body.find("no such endpoint: /nope.html"), std::string::npos) << result.body;
}

TEST_F(StaticFilesTest, TheApiRoutesAreUnchanged) {
  const auto health = Get("/healthz");
  EXPECT_EQ(health.status, 200);
  EXPECT_EQ(health.content_type, "application/json");
  EXPECT_EQ(Get("/metrics").status, 200);
  EXPECT_EQ(Get("/api/matches").status, 405);
  EXPECT_EQ(Get("/api/nope").status, 404);
  EXPECT_EQ(Get("/ws").status, 426);
  EXPECT_EQ(testing::HttpGet(server_->port(), "/", http::verb::post).status, 404);
}

TEST(StaticFilesWithoutRootTest, NoWebRootLeavesTheJson404) {
  testing::TestServer server;
  const auto result = testing::HttpGet(server.port(), "/");
  EXPECT_EQ(result.status, 404);
  EXPECT_EQ(result.content_type, "application/json");
}

TEST(StaticFilesWithoutRootTest, TheDefaultRootIsTheInstalledOneWhenItIsThere) {
  testing::TempDir dir;
  const fs::path source = dir.path() / "source" / "web";
  EXPECT_EQ(server::DefaultWebRoot(dir.path() / "bin" / "melee-server", source), source);
  Write(dir.path() / "share" / "melee" / "web" / "index.html", kIndex);
  EXPECT_EQ(server::DefaultWebRoot(dir.path() / "bin" / "melee-server", source),
            dir.path() / "share" / "melee" / "web");
}

// The real web client obeys the policy: every script is a file, no inline handler or style.
TEST(WebClientFilesTest, PagesHaveNoInlineScriptOrStyle) {
  const fs::path root = MELEE_SOURCE_WEB_ROOT;
  ASSERT_TRUE(fs::exists(root / "index.html")) << root;
  int pages = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.path().extension() != ".html") continue;
    ++pages;
    std::ifstream in(entry.path());
    const std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_FALSE(std::regex_search(html, std::regex("<script(?![^>]*\\ssrc=)[^>]*>")))
        << entry.path() << " has an inline <script>";
    EXPECT_FALSE(std::regex_search(html, std::regex("\\son[a-z]+\\s*=", std::regex::icase)))
        << entry.path() << " has an inline event handler";
    EXPECT_FALSE(std::regex_search(html, std::regex("\\sstyle\\s*=|<style", std::regex::icase)))
        << entry.path() << " has an inline style";
  }
  EXPECT_GE(pages, 2);
}

}  // namespace
}  // namespace melee
