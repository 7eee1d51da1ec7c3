#pragma once

// The HTTP endpoint where a seat registers, changes or removes its webhook and its mail address
// (docs/notifications.md):
//   PUT    /api/matches/{id}/notifications   {"webhook_url": "https://..."}  -> the secret, once
//                                            {"email": "a@example.org", "digest_minutes": 0}
//   DELETE /api/matches/{id}/notifications[?channel=webhook|email]  (no channel: both)
// both with "Authorization: Bearer <seat token>".

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "server/transport/context.h"
#include "server/transport/http_routes.h"

namespace melee::server {

// Returns the match id of a notifications path ("/api/matches/{id}/notifications"), if `path`
// is one.
std::optional<std::string> NotificationsMatchId(std::string_view path);

// Answers a request to the notifications endpoint of `match_id`.
HttpResponse HandleNotifications(const HttpRequest& request, const std::string& match_id,
                                 ServerContext& context);

}  // namespace melee::server
