// Mail delivery over libcurl's SMTP: see mail_delivery.h.

#include "server/notify/mail_delivery.h"

#include <curl/curl.h>
#include <openssl/evp.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <future>
#include <memory>
#include <optional>

#include "proto/codec/json.h"
#include "server/match_file.h"
#include "server/version.h"

namespace melee::server::notify {
namespace {

// The events a mail lists at most (the inbox's limit).
constexpr size_t kMaxMailEvents = 20;
// How long a mail waits for its match to answer (view, events, export).
constexpr auto kMatchAnswerTimeout = std::chrono::seconds(10);

int64_t NowUnixMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void InitCurlOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

std::string Base64(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int length = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                     reinterpret_cast<const unsigned char*>(bytes.data()),
                                     static_cast<int>(bytes.size()));
  out.resize(static_cast<size_t>(length));
  return out;
}

// A header value as RFC 2047 asks: as it is when it is printable ASCII, else UTF-8 in base64.
std::string HeaderText(const std::string& text) {
  const bool plain = std::all_of(text.begin(), text.end(), [](char c) {
    return static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f;
  });
  return plain ? text : "=?UTF-8?B?" + Base64(text) + "?=";
}

// "Wed, 25 Nov 2026 23:10:50 +0000" (RFC 5322).
std::string MailDate(int64_t unix_ms) {
  const std::time_t seconds = static_cast<std::time_t>(unix_ms / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  static const char* const kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static const char* const kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                        "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  char text[64];
  std::snprintf(text, sizeof text, "%s, %02d %s %04d %02d:%02d:%02d +0000", kDays[utc.tm_wday],
                utc.tm_mday, kMonths[utc.tm_mon], utc.tm_year + 1900, utc.tm_hour, utc.tm_min,
                utc.tm_sec);
  return text;
}

// The domain of the From address, for Message-IDs ("melee" when it has none).
std::string MailDomain(const std::string& from) {
  const size_t at = from.rfind('@');
  return at == std::string::npos || at + 1 == from.size() ? "melee" : from.substr(at + 1);
}

std::string Trimmed(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

// Runs `ask` (which calls a Match method that answers on the match's strand) and waits for its
// answer, at most kMatchAnswerTimeout; nothing when none came in time.
template <class T, class Ask>
std::optional<engine::Result<T>> AskMatch(Ask&& ask) {
  auto answer = std::make_shared<std::promise<engine::Result<T>>>();
  std::future<engine::Result<T>> future = answer->get_future();
  ask([answer](engine::Result<T> result) { answer->set_value(std::move(result)); });
  if (future.wait_for(kMatchAnswerTimeout) != std::future_status::ready) return std::nullopt;
  return future.get();
}

}  // namespace

std::string WebSocketUrl(const std::string& public_url) {
  std::string url = Trimmed(public_url);
  if (url.starts_with("https://")) {
    url = "wss://" + url.substr(8);
  } else if (url.starts_with("http://")) {
    url = "ws://" + url.substr(7);
  }
  return url + "/ws";
}

std::string SeatWebLink(const std::string& public_url, const std::string& match_id,
                        const std::string& seat, const std::string& token) {
  // Match ids and tokens are letters and digits: nothing to escape in the fragment.
  return Trimmed(public_url) + "/match.html#m=" + match_id + "&as=" + seat + "&t=" + token;
}

MailDelivery::MailDelivery(persistence::NotificationStore& store, Emails& emails,
                           Matches& matches, Metrics& metrics, MailOptions options)
    : store_(store),
      emails_(emails),
      matches_(matches),
      metrics_(metrics),
      options_(std::move(options)) {
  InitCurlOnce();
}

MailDelivery::~MailDelivery() { Stop(); }

void MailDelivery::Start() {
  if (thread_.joinable()) return;
  thread_ = std::thread([this] { Loop(); });
}

void MailDelivery::Wake() {
  std::lock_guard lock(mutex_);
  woken_ = true;
  wake_cv_.notify_one();
}

void MailDelivery::Stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    wake_cv_.notify_one();
  }
  if (thread_.joinable()) thread_.join();
}

bool MailDelivery::Stopping() {
  std::lock_guard lock(mutex_);
  return stopping_;
}

void MailDelivery::Loop() {
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      if (stopping_) return;
      woken_ = false;
    }
    auto due = store_.DueNotices(persistence::kEmailChannel, NowUnixMs(), options_.batch);
    if (!due) spdlog::warn("mail: {}", due.error().message);
    bool full = false;
    next_retry_unix_ms_ = 0;
    if (due) {
      full = due->size() == options_.batch;
      std::set<std::string> seats_done;
      for (const persistence::OutboxNotice& notice : *due) {
        if (Stopping()) return;
        Deliver(notice, seats_done);
      }
    }
    UpdateGauges();
    if (full) continue;  // more are due
    int64_t wait_ms = options_.poll_ms;
    if (next_retry_unix_ms_ != 0) {
      wait_ms = std::clamp<int64_t>(next_retry_unix_ms_ - NowUnixMs(), 0, wait_ms);
    }
    std::unique_lock lock(mutex_);
    wake_cv_.wait_for(lock, std::chrono::milliseconds(wait_ms),
                      [this] { return woken_ || stopping_; });
  }
}

void MailDelivery::Deliver(const persistence::OutboxNotice& notice,
                           std::set<std::string>& seats_done) {
  const std::string seat_key = notice.match_id + "/" + notice.seat;
  if (seats_done.contains(seat_key)) return;  // a digest of this round took it with it
  const std::optional<persistence::EmailRegistration> email =
      emails_.Find(notice.match_id, notice.seat);
  if (!email) {
    // The seat removed its address after the notice was made: nobody to tell.
    if (auto dropped = store_.NoticeDelivered(notice.delivery_id); !dropped) {
      spdlog::warn("mail: {}", dropped.error().message);
    }
    return;
  }
  const int64_t now = NowUnixMs();
  std::vector<persistence::OutboxNotice> notices = {notice};
  if (email->digest_minutes > 0) {
    const int64_t opens = email->last_mailed_unix_ms + int64_t{email->digest_minutes} * 60000;
    if (email->last_mailed_unix_ms != 0 && now < opens) {
      // Inside the digest's window: the notice waits for the next mail (not a failure).
      if (auto held = store_.NoticeFailed(notice.delivery_id, notice.attempts, opens,
                                          "digest: waits for the next mail");
          !held) {
        spdlog::warn("mail: {}", held.error().message);
      }
      if (next_retry_unix_ms_ == 0 || opens < next_retry_unix_ms_) next_retry_unix_ms_ = opens;
      return;
    }
    seats_done.insert(seat_key);
    auto waiting = store_.SeatNotices(persistence::kEmailChannel, notice.match_id, notice.seat);
    if (!waiting) {
      spdlog::warn("mail: {}", waiting.error().message);
      return;
    }
    if (!waiting->empty()) notices = std::move(*waiting);
  }
  auto mail = Compose(*email, notices);
  const std::string failure = mail ? Send(email->address, *mail) : mail.error();
  if (!failure.empty()) return Failed(notices, failure);
  metrics_.emails_delivered.Increment();
  for (const persistence::OutboxNotice& sent : notices) {
    if (auto done = store_.NoticeDelivered(sent.delivery_id); !done) {
      spdlog::warn("mail: {} (it will be sent again)", done.error().message);
    }
  }
  if (auto noted = emails_.Sent(email->match_id, email->seat, now, mail->last_seq); !noted) {
    spdlog::warn("mail: {}", noted.error().message);
  }
  spdlog::info("mail: {} notice(s) of match {} mailed to {} ({})", notices.size(),
               email->match_id, email->seat, mail->message_id);
}

tl::expected<MailDelivery::Mail, std::string> MailDelivery::Compose(
    const persistence::EmailRegistration& email,
    const std::vector<persistence::OutboxNotice>& notices) {
  const std::shared_ptr<Match> match = matches_.Find(email.match_id);
  if (!match) return tl::unexpected("match " + email.match_id + " is not open on this server");
  const engine::Viewer viewer =
      email.seat == "side_a" ? engine::Viewer::kSideA : engine::Viewer::kSideB;
  std::vector<MailNotice> told;
  for (const persistence::OutboxNotice& notice : notices) {
    auto parsed = ParseMailNotice(notice.body);
    if (!parsed) {
      // Not this build's notice: still worth telling, in the words it has.
      MailNotice unknown;
      unknown.delivery_id = notice.delivery_id;
      unknown.kind = "notice";
      unknown.recorded_unix_ms = notice.created_unix_ms;
      parsed = std::move(unknown);
    }
    told.push_back(std::move(*parsed));
  }
  auto entry = AskMatch<melee::v1::InboxEntry>([&](auto done) {
    match->Look(viewer, email.last_mailed_seq, kMaxMailEvents, std::move(done));
  });
  if (!entry) return tl::unexpected(std::string("the match did not answer in time"));
  if (!*entry) return tl::unexpected(engine::Describe(entry->error()));
  auto file = AskMatch<melee::storage::v1::MatchFile>(
      [&](auto done) { match->Export(viewer, std::move(done)); });
  if (!file) return tl::unexpected(std::string("the match did not answer in time"));
  if (!*file) return tl::unexpected(engine::Describe(file->error()));
  const melee::storage::v1::MatchFile& match_file = **file;

  MailFacts facts;
  facts.match_id = email.match_id;
  facts.title = match->identity().settings.title();
  facts.ruleset = match->identity().settings.ruleset();
  facts.seat = email.seat;
  facts.web_link = SeatWebLink(options_.public_url, email.match_id, email.seat, email.token);
  facts.seat_file_name = email.match_id + "-" + email.seat + ".seat";
  facts.match_file_name = email.match_id + "-" + match_file.exported_for() + ".melee.json";
  facts.match_file_seq =
      match_file.events().empty() ? 0 : match_file.events(match_file.events_size() - 1).seq();
  facts.entry = std::move(**entry);

  melee::v1::SeatLink link;
  link.set_server(WebSocketUrl(options_.public_url));
  link.set_match_id(email.match_id);
  link.set_seat(facts.entry.seat());
  link.set_token(email.token);
  link.set_last_seq(facts.entry.view().seq());
  link.set_title(facts.title);
  link.set_ruleset(facts.ruleset);

  Mail mail;
  mail.subject = MailSubject(facts, told);
  mail.message_id = "<" + told.front().delivery_id + "@" + MailDomain(options_.from) + ">";
  mail.text = MailBody(facts, told);
  mail.attachments = {{facts.seat_file_name, proto::ToJson(link, proto::JsonStyle::kPretty)},
                      {facts.match_file_name, MatchFileJson(match_file)}};
  mail.last_seq = facts.entry.view().seq();
  for (const MailNotice& notice : told) mail.last_seq = std::max(mail.last_seq, notice.last_seq);
  return mail;
}

std::string MailDelivery::Send(const std::string& address, const Mail& mail) {
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), &curl_easy_cleanup);
  if (!curl) return "libcurl could not start a session";
  CURL* handle = curl.get();
  std::unique_ptr<curl_mime, decltype(&curl_mime_free)> mime(curl_mime_init(handle),
                                                              &curl_mime_free);
  // Text travels with CRLF line breaks (RFC 2045): the quoted-printable encoder keeps them as
  // lines, where it would encode a bare LF as =0A.
  std::string crlf_text;
  for (const char c : mail.text) {
    if (c == '\n') crlf_text += '\r';
    crlf_text += c;
  }
  curl_mimepart* text = curl_mime_addpart(mime.get());
  curl_mime_data(text, crlf_text.data(), crlf_text.size());
  curl_mime_type(text, "text/plain; charset=utf-8");
  curl_mime_encoder(text, "quoted-printable");
  for (const auto& [name, content] : mail.attachments) {
    curl_mimepart* part = curl_mime_addpart(mime.get());
    curl_mime_data(part, content.data(), content.size());
    curl_mime_filename(part, name.c_str());
    curl_mime_type(part, "application/json");
    curl_mime_encoder(part, "base64");
  }
  const std::vector<std::string> lines = {
      "Date: " + MailDate(NowUnixMs()),
      "From: Melee <" + options_.from + ">",
      "To: <" + address + ">",
      "Subject: " + HeaderText(mail.subject),
      "Message-ID: " + mail.message_id,
      "Auto-Submitted: auto-generated",
      "X-Mailer: " + std::string(kServerName) + "/" + kServerVersion};
  curl_slist* headers = nullptr;
  for (const std::string& line : lines) headers = curl_slist_append(headers, line.c_str());
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> header_list(headers,
                                                                          &curl_slist_free_all);
  const std::string rcpt = "<" + address + ">";
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> recipients(
      curl_slist_append(nullptr, rcpt.c_str()), &curl_slist_free_all);
  const std::string mail_from = "<" + options_.from + ">";
  curl_easy_setopt(handle, CURLOPT_URL, options_.smtp_url.c_str());
  curl_easy_setopt(handle, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
  curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(handle, CURLOPT_TIMEOUT_MS, static_cast<long>(options_.timeout_ms));
  curl_easy_setopt(handle, CURLOPT_MAIL_FROM, mail_from.c_str());
  curl_easy_setopt(handle, CURLOPT_MAIL_RCPT, recipients.get());
  curl_easy_setopt(handle, CURLOPT_HTTPHEADER, header_list.get());
  curl_easy_setopt(handle, CURLOPT_MIMEPOST, mime.get());
  if (options_.starttls) curl_easy_setopt(handle, CURLOPT_USE_SSL, static_cast<long>(CURLUSESSL_ALL));
  if (!options_.ca_file.empty()) curl_easy_setopt(handle, CURLOPT_CAINFO, options_.ca_file.c_str());
  if (!options_.user.empty()) {
    curl_easy_setopt(handle, CURLOPT_USERNAME, options_.user.c_str());
    curl_easy_setopt(handle, CURLOPT_PASSWORD, options_.password.c_str());
  }
  if (const CURLcode rc = curl_easy_perform(handle); rc != CURLE_OK) {
    long status = 0;
    curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &status);
    return std::string(curl_easy_strerror(rc)) +
           (status != 0 ? " (the relay answered " + std::to_string(status) + ")" : "");
  }
  return {};
}

void MailDelivery::Failed(const std::vector<persistence::OutboxNotice>& notices,
                          const std::string& why) {
  metrics_.email_attempts_failed.Increment();
  const uint32_t attempts = notices.front().attempts + 1;
  int64_t wait = options_.first_retry_ms;
  for (uint32_t i = 1; i < attempts && wait < options_.max_retry_ms; ++i) wait *= 2;
  wait = std::min(wait, options_.max_retry_ms);
  spdlog::info("mail: notice {} of match {} for {}: attempt {} failed ({}); next in {} ms",
               notices.front().delivery_id, notices.front().match_id, notices.front().seat,
               attempts, why, wait);
  const int64_t next = NowUnixMs() + wait;
  if (next_retry_unix_ms_ == 0 || next < next_retry_unix_ms_) next_retry_unix_ms_ = next;
  for (const persistence::OutboxNotice& notice : notices) {
    if (auto noted = store_.NoticeFailed(notice.delivery_id, attempts, next, why); !noted) {
      spdlog::warn("mail: {}", noted.error().message);
    }
  }
}

void MailDelivery::UpdateGauges() {
  auto outbox = store_.Outbox(persistence::kEmailChannel);
  if (!outbox) return;
  metrics_.emails_pending.Set(static_cast<double>(outbox->pending));
  const int64_t age_ms =
      outbox->pending == 0 ? 0 : std::max<int64_t>(0, NowUnixMs() - outbox->oldest_created_unix_ms);
  metrics_.emails_oldest_pending_seconds.Set(static_cast<double>(age_ms) / 1000.0);
}

}  // namespace melee::server::notify
