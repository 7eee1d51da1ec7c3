// Webhook delivery over libcurl: see webhook_delivery.h.

#include "server/notify/webhook_delivery.h"

#include <curl/curl.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>

#include "persistence/fair_play.h"
#include "server/version.h"

namespace melee::server::notify {
namespace {

int64_t NowUnixMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Discards a receiver's answer body (only its status counts).
size_t Discard(char* /*data*/, size_t size, size_t count, void* /*user*/) { return size * count; }

void InitCurlOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

}  // namespace

std::string Signature(const std::string& secret, const std::string& body) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
       reinterpret_cast<const unsigned char*>(body.data()), body.size(), mac, &length);
  return "sha256=" + persistence::BytesToHex(
                         std::string_view(reinterpret_cast<const char*>(mac), length));
}

WebhookDelivery::WebhookDelivery(persistence::NotificationStore& store, const Webhooks& webhooks,
                                 Metrics& metrics, DeliveryOptions options)
    : store_(store), webhooks_(webhooks), metrics_(metrics), options_(options) {
  InitCurlOnce();
}

WebhookDelivery::~WebhookDelivery() { Stop(); }

void WebhookDelivery::Start() {
  if (thread_.joinable()) return;
  thread_ = std::thread([this] { Loop(); });
}

void WebhookDelivery::Wake() {
  std::lock_guard lock(mutex_);
  woken_ = true;
  wake_cv_.notify_one();
}

void WebhookDelivery::Stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    wake_cv_.notify_one();
  }
  if (thread_.joinable()) thread_.join();
}

void WebhookDelivery::Loop() {
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      if (stopping_) return;
      woken_ = false;
    }
    auto due = store_.DueNotices(persistence::kWebhookChannel, NowUnixMs(), options_.batch);
    if (!due) spdlog::warn("webhooks: {}", due.error().message);
    bool full = false;
    next_retry_unix_ms_ = 0;
    if (due) {
      full = due->size() == options_.batch;
      for (const persistence::OutboxNotice& notice : *due) {
        {
          std::lock_guard lock(mutex_);
          if (stopping_) return;
        }
        Deliver(notice);
      }
    }
    UpdateGauges();
    if (full) continue;  // more are due
    // Until the next poll, or sooner when a retry of this round falls due before it.
    int64_t wait_ms = options_.poll_ms;
    if (next_retry_unix_ms_ != 0) {
      wait_ms = std::clamp<int64_t>(next_retry_unix_ms_ - NowUnixMs(), 0, wait_ms);
    }
    std::unique_lock lock(mutex_);
    wake_cv_.wait_for(lock, std::chrono::milliseconds(wait_ms),
                      [this] { return woken_ || stopping_; });
  }
}

void WebhookDelivery::Deliver(const persistence::OutboxNotice& notice) {
  const std::optional<persistence::Webhook> webhook =
      webhooks_.Find(notice.match_id, notice.seat);
  if (!webhook) {
    // The seat removed its webhook after the notice was made: nobody to tell.
    if (auto dropped = store_.NoticeDelivered(notice.delivery_id); !dropped) {
      spdlog::warn("webhooks: {}", dropped.error().message);
    }
    return;
  }
  const std::string failure = Post(*webhook, notice);
  if (failure.empty()) {
    metrics_.webhooks_delivered.Increment();
    if (auto done = store_.NoticeDelivered(notice.delivery_id); !done) {
      spdlog::warn("webhooks: {} (it will be sent again)", done.error().message);
    }
    return;
  }
  metrics_.webhook_attempts_failed.Increment();
  const uint32_t attempts = notice.attempts + 1;
  int64_t wait = options_.first_retry_ms;
  for (uint32_t i = 1; i < attempts && wait < options_.max_retry_ms; ++i) wait *= 2;
  wait = std::min(wait, options_.max_retry_ms);
  spdlog::info("webhooks: notice {} of match {} for {}: attempt {} failed ({}); next in {} ms",
               notice.delivery_id, notice.match_id, notice.seat, attempts, failure, wait);
  const int64_t next = NowUnixMs() + wait;
  if (next_retry_unix_ms_ == 0 || next < next_retry_unix_ms_) next_retry_unix_ms_ = next;
  if (auto noted = store_.NoticeFailed(notice.delivery_id, attempts, next, failure); !noted) {
    spdlog::warn("webhooks: {}", noted.error().message);
  }
}

std::string WebhookDelivery::Post(const persistence::Webhook& webhook,
                                  const persistence::OutboxNotice& notice) {
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), &curl_easy_cleanup);
  if (!curl) return "libcurl could not start a request";
  curl_slist* headers = nullptr;
  const std::string delivery = "X-Melee-Delivery: " + notice.delivery_id;
  const std::string signature = "X-Melee-Signature: " + Signature(webhook.secret, notice.body);
  headers = curl_slist_append(headers, "Content-Type: application/json");
  headers = curl_slist_append(headers, delivery.c_str());
  headers = curl_slist_append(headers, signature.c_str());
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> header_list(headers,
                                                                          &curl_slist_free_all);
  const std::string agent = std::string(kServerName) + "/" + kServerVersion;
  CURL* handle = curl.get();
  curl_easy_setopt(handle, CURLOPT_URL, webhook.url.c_str());
  curl_easy_setopt(handle, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(handle, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(handle, CURLOPT_TIMEOUT_MS, static_cast<long>(options_.timeout_ms));
  curl_easy_setopt(handle, CURLOPT_USERAGENT, agent.c_str());
  curl_easy_setopt(handle, CURLOPT_HTTPHEADER, header_list.get());
  curl_easy_setopt(handle, CURLOPT_POSTFIELDS, notice.body.c_str());
  curl_easy_setopt(handle, CURLOPT_POSTFIELDSIZE_LARGE,
                   static_cast<curl_off_t>(notice.body.size()));
  curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, &Discard);
  if (const CURLcode rc = curl_easy_perform(handle); rc != CURLE_OK) {
    return curl_easy_strerror(rc);
  }
  long status = 0;
  curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &status);
  if (status < 200 || status > 299) return "the receiver answered " + std::to_string(status);
  return {};
}

void WebhookDelivery::UpdateGauges() {
  auto outbox = store_.Outbox(persistence::kWebhookChannel);
  if (!outbox) return;
  metrics_.webhooks_pending.Set(static_cast<double>(outbox->pending));
  const int64_t age_ms =
      outbox->pending == 0 ? 0 : std::max<int64_t>(0, NowUnixMs() - outbox->oldest_created_unix_ms);
  metrics_.webhooks_oldest_pending_seconds.Set(static_cast<double>(age_ms) / 1000.0);
}

}  // namespace melee::server::notify
