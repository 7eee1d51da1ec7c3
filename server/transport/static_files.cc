#include "server/transport/static_files.h"

#include <openssl/sha.h>

#include <boost/url/pct_string_view.hpp>
#include <algorithm>
#include <fstream>
#include <iterator>
#include <system_error>
#include <vector>

#include "melee/v1/common.pb.h"
#include "server/version.h"

namespace melee::server {
namespace {

namespace http = boost::beast::http;
namespace fs = std::filesystem;

// Files above this are not the web client's: refused rather than read into memory.
constexpr std::uintmax_t kMaxFileBytes = 8 * 1024 * 1024;

// A Host header is echoed into the Content-Security-Policy only when it is a plain host[:port]
// (letters, digits, '.', '-', ':', '[' and ']'): anything else could smuggle a directive in.
bool IsPlainHost(std::string_view host) {
  if (host.empty() || host.size() > 255) return false;
  for (const char c : host) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '-' || c == ':' || c == '[' || c == ']';
    if (!ok) return false;
  }
  return true;
}

// The policy of every page: scripts, styles, images and fetches from this server only, the
// WebSocket to this host (ws: and wss:, named too for browsers whose 'self' omits them), no
// inline script or style, no plugins, no framing, no <base> tricks.
std::string ContentSecurityPolicy(std::string_view host) {
  std::string connect = "'self'";
  if (IsPlainHost(host)) {
    connect += " ws://" + std::string(host) + " wss://" + std::string(host);
  }
  return "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
         "connect-src " + connect + "; object-src 'none'; base-uri 'none'; "
         "frame-ancestors 'none'; form-action 'self'";
}

// A strong ETag: the first 128 bits of the content's SHA-256, in hex.
std::string ETagOf(const std::string& content) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(content.data()), content.size(), digest);
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string tag = "\"";
  for (int i = 0; i < 16; ++i) {
    tag += kDigits[digest[i] >> 4];
    tag += kDigits[digest[i] & 15];
  }
  return tag + "\"";
}

// Whether an If-None-Match header names `etag` (a list, or "*").
bool NamesETag(std::string_view if_none_match, const std::string& etag) {
  if (if_none_match.empty()) return false;
  if (if_none_match.find('*') != std::string_view::npos) return true;
  std::string_view rest = if_none_match;
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    std::string_view one = rest.substr(0, comma);
    while (!one.empty() && one.front() == ' ') one.remove_prefix(1);
    while (!one.empty() && one.back() == ' ') one.remove_suffix(1);
    if (one.starts_with("W/")) one.remove_prefix(2);  // weak comparison (RFC 9110 13.1.2)
    if (one == etag) return true;
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return false;
}

HttpResponse Respond(const HttpRequest& request, http::status status) {
  HttpResponse response{status, request.version()};
  response.set(http::field::server, std::string(kServerName) + "/" + kServerVersion);
  response.set("Content-Security-Policy",
               ContentSecurityPolicy(request[http::field::host]));
  response.set("X-Content-Type-Options", "nosniff");
  response.set("Referrer-Policy", "no-referrer");
  response.set("X-Frame-Options", "DENY");
  response.keep_alive(request.keep_alive());
  return response;
}

// Returns the path relative to the web root that `path` names, or why it is refused. Each
// segment is percent-decoded once; a segment that is "." or "..", or holds a '/', '\' or NUL
// after decoding, is refused, so no spelling of ".." reaches the file system.
std::optional<std::string> RelativePath(std::string_view path, std::string* refusal) {
  if (path.empty() || path.front() != '/') {
    *refusal = "the path must start with '/'";
    return std::nullopt;
  }
  auto encoded = boost::urls::make_pct_string_view(path);
  if (!encoded) {
    *refusal = "the path is not valid percent-encoding";
    return std::nullopt;
  }
  std::vector<std::string> segments;
  std::string_view rest = path.substr(1);
  while (true) {
    const size_t slash = rest.find('/');
    const std::string_view raw = rest.substr(0, slash);
    const std::string segment = boost::urls::make_pct_string_view(raw)->decode();
    if (segment == "." || segment == "..") {
      *refusal = "the path may not name '.' or '..'";
      return std::nullopt;
    }
    if (segment.find_first_of(std::string_view("/\\\0", 3)) != std::string::npos) {
      *refusal = "the path may not hold a backslash, an encoded '/' or a NUL";
      return std::nullopt;
    }
    if (slash == std::string_view::npos) {
      segments.push_back(segment.empty() ? "index.html" : segment);
      break;
    }
    if (!segment.empty()) segments.push_back(segment);
    rest.remove_prefix(slash + 1);
  }
  std::string relative;
  for (const std::string& segment : segments) {
    if (segment.front() == '.') return std::string();  // hidden files are not served: a 404
    if (!relative.empty()) relative += '/';
    relative += segment;
  }
  return relative;
}

}  // namespace

std::string ContentTypeFor(const fs::path& name) {
  const std::string extension = name.extension().string();
  if (extension == ".html") return "text/html; charset=utf-8";
  if (extension == ".js" || extension == ".mjs") return "text/javascript; charset=utf-8";
  if (extension == ".css") return "text/css; charset=utf-8";
  if (extension == ".json") return "application/json";
  if (extension == ".svg") return "image/svg+xml";
  if (extension == ".png") return "image/png";
  if (extension == ".ico") return "image/x-icon";
  if (extension == ".txt" || extension == ".md") return "text/plain; charset=utf-8";
  if (extension == ".webmanifest") return "application/manifest+json";
  return "application/octet-stream";
}

std::optional<HttpResponse> ServeStaticFile(const HttpRequest& request, std::string_view path,
                                            const fs::path& web_root) {
  std::string refusal;
  const std::optional<std::string> relative = RelativePath(path, &refusal);
  if (!relative) {
    return HttpError(request, http::status::bad_request, melee::v1::ERROR_CODE_MALFORMED_FRAME,
                     "refused " + std::string(path) + ": " + refusal);
  }
  if (relative->empty() || web_root.empty()) return std::nullopt;
  std::error_code ec;
  const fs::path root = fs::canonical(web_root, ec);
  if (ec) return std::nullopt;
  const fs::path file = fs::canonical(root / *relative, ec);
  // A symbolic link inside the root that points out of it is not followed.
  if (ec || !fs::is_regular_file(file, ec)) return std::nullopt;
  const auto [end, _] = std::mismatch(root.begin(), root.end(), file.begin(), file.end());
  if (end != root.end()) return std::nullopt;
  if (fs::file_size(file, ec) > kMaxFileBytes || ec) return std::nullopt;
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());

  const std::string etag = ETagOf(content);
  HttpResponse response = Respond(request, http::status::ok);
  response.set(http::field::etag, etag);
  response.set(http::field::cache_control, "no-cache");
  if (NamesETag(request[http::field::if_none_match], etag)) {
    response.result(http::status::not_modified);
    response.prepare_payload();
    return response;
  }
  response.set(http::field::content_type, ContentTypeFor(file));
  const size_t size = content.size();
  if (request.method() != http::verb::head) response.body() = std::move(content);
  response.prepare_payload();
  // HEAD: the headers of the GET, its Content-Length included, and no body (RFC 9110 9.3.2).
  if (request.method() == http::verb::head) response.content_length(size);
  return response;
}

fs::path DefaultWebRoot(const fs::path& executable, const fs::path& source_web_root) {
  std::error_code ec;
  const fs::path installed =
      executable.parent_path().parent_path() / "share" / "melee" / "web";
  if (fs::is_regular_file(installed / "index.html", ec)) return installed;
  return source_web_root;
}

}  // namespace melee::server
