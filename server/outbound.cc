#include "server/outbound.h"

#include <utility>

namespace melee::server {

Outbound::Outbound(melee::v1::ServerMessage message) : message_(std::move(message)) {}

Outbound::Outbound(melee::v1::ServerMessage message, std::string binary)
    : message_(std::move(message)),
      binary_(std::make_shared<const std::string>(std::move(binary))) {
  std::call_once(binary_once_, [] {});
}

const std::shared_ptr<const std::string>& Outbound::Frame(proto::FrameKind kind) const {
  const auto encode = [this](proto::FrameKind k) {
    return std::make_shared<const std::string>(proto::EncodeServerMessage(message_, k));
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
