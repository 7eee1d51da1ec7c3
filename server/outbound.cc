#include "server/outbound.h"

#include <stdexcept>
#include <utility>

namespace melee::server {

Outbound::Outbound(melee::v1::ServerMessage message) : message_(std::move(message)) {
  std::call_once(tree_once_, [] {});
}

Outbound::Outbound(melee::v1::ServerMessage message, std::string binary)
    : message_(std::move(message)),
      binary_(std::make_shared<const std::string>(std::move(binary))) {
  std::call_once(tree_once_, [] {});
  std::call_once(binary_once_, [] {});
}

std::shared_ptr<const Outbound> Outbound::FromBinary(std::string binary) {
  // Not make_shared: the constructor is private.
  std::shared_ptr<Outbound> out(new Outbound());
  out->binary_ = std::make_shared<const std::string>(std::move(binary));
  std::call_once(out->binary_once_, [] {});
  return out;
}

const melee::v1::ServerMessage& Outbound::message() const {
  std::call_once(tree_once_, [this] {
    if (!message_.ParseFromString(*binary_)) {
      throw std::logic_error("Outbound: the bytes given are not a ServerMessage");
    }
  });
  return message_;
}

const std::shared_ptr<const std::string>& Outbound::Frame(proto::FrameKind kind) const {
  const auto encode = [this](proto::FrameKind k) {
    return std::make_shared<const std::string>(proto::EncodeServerMessage(message(), k));
  };
  if (kind == proto::FrameKind::kBinary) {
    std::call_once(binary_once_, [&] { binary_ = encode(kind); });
    return binary_;
  }
  std::call_once(text_once_, [&] { text_ = encode(kind); });
  return text_;
}

MessagePtr MakeMessage(melee::v1::ServerMessage message) {
  return std::make_shared<const Outbound>(std::move(message));
}

}  // namespace melee::server
