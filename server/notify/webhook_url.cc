// Webhook URL checks: see webhook_url.h.

#include "server/notify/webhook_url.h"

#include <boost/url/parse.hpp>

namespace melee::server::notify {

std::optional<std::string> WebhookUrlProblem(std::string_view url) {
  if (url.empty()) return "the webhook URL is empty";
  if (url.size() > kMaxWebhookUrlBytes) {
    return "the webhook URL is " + std::to_string(url.size()) + " bytes long; at most " +
           std::to_string(kMaxWebhookUrlBytes) + " are accepted";
  }
  auto parsed = boost::urls::parse_absolute_uri(url);
  if (!parsed) {
    return "the webhook URL is not an absolute URL (" + parsed.error().message() +
           "): write it as https://host[:port]/path";
  }
  const std::string scheme(parsed->scheme());
  if (scheme != "http" && scheme != "https") {
    return "the webhook URL's scheme is \"" + scheme + "\": only http and https are accepted";
  }
  if (!parsed->has_authority() || parsed->encoded_host().empty()) {
    return "the webhook URL has no host: write it as " + scheme + "://host[:port]/path";
  }
  if (parsed->has_userinfo()) {
    return "the webhook URL carries credentials (user:password@): they would be stored and sent "
           "in clear; authenticate the server by the X-Melee-Signature header instead";
  }
  if (parsed->has_fragment()) return "the webhook URL has a fragment (#...): leave it out";
  return std::nullopt;
}

}  // namespace melee::server::notify
