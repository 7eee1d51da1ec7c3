#include "server/outbound.h"

#include <stdexcept>
#include <utility>

namespace melee::server {

namespace {

// Runs `make` once, the first time `done` is seen unset, under `mutex`.
template <class Make>
void Once(std::mutex& mutex, std::atomic<bool>& done, Make&& make) {
  if (done.load(std::memory_order_acquire)) return;
  std::lock_guard lock(mutex);
  if (done.load(std::memory_order_relaxed)) return;
  make();
  done.store(true, std::memory_order_release);
}

}  // namespace

Outbound::Outbound(melee::v1::ServerMessage message)
    : has_tree_(true), message_(std::move(message)) {}

Outbound::Outbound(melee::v1::ServerMessage message, std::string binary)
    : has_tree_(true),
      has_binary_(true),
      message_(std::move(message)),
      binary_(std::make_shared<const std::string>(std::move(binary))) {}

std::shared_ptr<const Outbound> Outbound::FromBinary(std::string binary) {
  // Not make_shared: the constructor is private.
  std::shared_ptr<Outbound> out(new Outbound());
  out->binary_ = std::make_shared<const std::string>(std::move(binary));
  out->has_binary_.store(true, std::memory_order_release);
  return out;
}

const melee::v1::ServerMessage& Outbound::message() const {
  Once(mutex_, has_tree_, [this] {
    if (!message_.ParseFromString(*binary_)) {
      throw std::logic_error("Outbound: the bytes given are not a ServerMessage");
    }
  });
  return message_;
}

const std::shared_ptr<const std::string>& Outbound::Frame(proto::FrameKind kind) const {
  if (kind == proto::FrameKind::kBinary) {
    // message() first: it takes the lock itself (a message has its tree or its bytes).
    if (!has_binary_.load(std::memory_order_acquire)) {
      const melee::v1::ServerMessage& tree = message();
      Once(mutex_, has_binary_, [&] {
        binary_ = std::make_shared<const std::string>(proto::EncodeServerMessage(tree, kind));
      });
    }
    return binary_;
  }
  if (!has_text_.load(std::memory_order_acquire)) {
    const melee::v1::ServerMessage& tree = message();
    Once(mutex_, has_text_, [&] {
      text_ = std::make_shared<const std::string>(proto::EncodeServerMessage(tree, kind));
    });
  }
  return text_;
}

MessagePtr MakeMessage(melee::v1::ServerMessage message) {
  return std::make_shared<const Outbound>(std::move(message));
}

}  // namespace melee::server
