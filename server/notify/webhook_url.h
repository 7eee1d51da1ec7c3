#pragma once

// Checks a webhook URL a seat registers (docs/notifications.md), before anything is stored.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace melee::server::notify {

// The longest webhook URL accepted.
inline constexpr size_t kMaxWebhookUrlBytes = 2048;

// Returns why `url` cannot be a webhook, or nothing when it can: it must be an absolute http://
// or https:// URL with a host, at most kMaxWebhookUrlBytes long, without credentials
// (user:password@) or a fragment.
std::optional<std::string> WebhookUrlProblem(std::string_view url);

}  // namespace melee::server::notify
