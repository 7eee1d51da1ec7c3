#pragma once

// The web client's files (client-sdk/web/, installed to share/melee/web), served read-only at /
// beside the API: GET and HEAD, a Content-Type by extension, "Cache-Control: no-cache" with an
// ETag (If-None-Match answers 304), and the security headers every page needs: a strict
// Content-Security-Policy (no inline script, no 'unsafe-inline'; WebSocket only to this host),
// nosniff and no Referer. A request that tries to leave the web root (.., %2e%2e, a backslash,
// NUL, bad percent-encoding) is refused with 400; a file that is not there is left to the
// caller, which answers its usual JSON 404.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "server/transport/config.h"  // DefaultWebRoot, the web root by default
#include "server/transport/http_routes.h"

namespace melee::server {

// Answers a GET or HEAD of `path` (the request target before any '?') from the files under
// `web_root`, or returns nullopt when no file answers it (the caller's 404). `path` "/" and any
// path ending in "/" serve that folder's index.html. Thread-safe: it only reads the files.
std::optional<HttpResponse> ServeStaticFile(const HttpRequest& request, std::string_view path,
                                            const std::filesystem::path& web_root);

// The Content-Type of a file named `name`, by its extension (application/octet-stream when
// the extension is not one the web client uses).
std::string ContentTypeFor(const std::filesystem::path& name);

}  // namespace melee::server
