// Mail address checks: see email_address.h.

#include "server/notify/email_address.h"

#include <algorithm>
#include <cctype>

namespace melee::server::notify {
namespace {

constexpr size_t kMaxLocalPartBytes = 64;
constexpr size_t kMaxLabelBytes = 63;

bool IsAtext(char c) {
  constexpr std::string_view kSymbols = "!#$%&'*+/=?^_`{|}~-";
  return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
         kSymbols.find(c) != std::string_view::npos;
}

std::optional<std::string> LocalPartProblem(std::string_view local) {
  if (local.empty()) return "the mail address has nothing before the @";
  if (local.size() > kMaxLocalPartBytes) {
    return "the mail address's part before the @ is " + std::to_string(local.size()) +
           " bytes long; at most " + std::to_string(kMaxLocalPartBytes) + " are accepted";
  }
  if (local.front() == '.' || local.back() == '.' || local.find("..") != std::string_view::npos) {
    return "the mail address's part before the @ starts or ends with a dot, or has two in a row";
  }
  for (const char c : local) {
    if (c != '.' && !IsAtext(c)) {
      return std::string("the mail address's part before the @ holds '") + c +
             "': only letters, digits, dots and !#$%&'*+/=?^_`{|}~- are accepted";
    }
  }
  return std::nullopt;
}

std::optional<std::string> DomainProblem(std::string_view domain) {
  if (domain.empty()) return "the mail address has no domain after the @";
  if (domain.front() == '[') {
    return "the mail address's domain is an address literal ([...]): give a domain name";
  }
  if (domain.find('.') == std::string_view::npos) {
    return "the mail address's domain \"" + std::string(domain) +
           "\" has no dot: give a full domain name (example.org)";
  }
  size_t start = 0;
  std::string_view last;
  while (start <= domain.size()) {
    const size_t dot = std::min(domain.find('.', start), domain.size());
    const std::string_view label = domain.substr(start, dot - start);
    if (label.empty()) {
      return "the mail address's domain \"" + std::string(domain) + "\" has an empty label "
             "(a dot first, last or twice)";
    }
    if (label.size() > kMaxLabelBytes) {
      return "the mail address's domain has a label of " + std::to_string(label.size()) +
             " bytes; at most " + std::to_string(kMaxLabelBytes) + " are accepted";
    }
    if (label.front() == '-' || label.back() == '-') {
      return "the mail address's domain label \"" + std::string(label) +
             "\" starts or ends with a hyphen";
    }
    for (const char c : label) {
      if (c != '-' && std::isalnum(static_cast<unsigned char>(c)) == 0) {
        return "the mail address's domain holds '" + std::string(1, c) +
               "': only letters, digits, hyphens and dots are accepted";
      }
    }
    last = label;
    start = dot + 1;
  }
  if (std::all_of(last.begin(), last.end(),
                  [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; })) {
    return "the mail address's domain \"" + std::string(domain) +
           "\" ends in a number: give a domain name";
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> EmailAddressProblem(std::string_view address) {
  if (address.empty()) return "the mail address is empty";
  if (address.size() > kMaxEmailAddressBytes) {
    return "the mail address is " + std::to_string(address.size()) + " bytes long; at most " +
           std::to_string(kMaxEmailAddressBytes) + " are accepted";
  }
  if (address.find_first_of("<>\"") != std::string_view::npos) {
    return "give the bare address (name@example.org), without a name, quotes or <...>";
  }
  for (const char c : address) {
    if (c == '\r' || c == '\n') {
      return "the mail address holds a line break (CR or LF): a mail header cannot carry one";
    }
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) return "the mail address holds a control character";
    if (byte >= 0x80) {
      return "the mail address holds a non-ASCII character: give its ASCII form (an "
             "internationalised domain as xn--...)";
    }
    if (c == ' ') return "the mail address holds a space";
  }
  const size_t at = address.rfind('@');
  if (at == std::string_view::npos) return "the mail address has no @ (write it as name@example.org)";
  if (address.find('@') != at) return "the mail address has more than one @";
  if (auto problem = LocalPartProblem(address.substr(0, at))) return problem;
  return DomainProblem(address.substr(at + 1));
}

}  // namespace melee::server::notify
