#pragma once

// The header of a WebSocket frame the server sends (RFC 6455, section 5.2): one whole message
// in one frame (FIN set), text or binary, unmasked (a server never masks, 5.1), no extension
// bits (a message may always go uncompressed, RFC 7692 section 6).
//
// Why the server writes it: Beast's `websocket::stream::async_write` sends one message per
// operation, and each operation costs an allocation, an executor hop and a completion; a command
// fans out into several messages per connection. A WebSocketSession writes the messages queued
// for it as header + bytes, all in one write of the layer below Beast (the CoalescingStream).
// Beast keeps the handshake, reading, control frames (ping, pong, close) and teardown.

#include <array>
#include <cstddef>
#include <cstdint>

namespace melee::server {

struct WsFrameHeader {
  std::array<unsigned char, 10> bytes{};  // 2 + up to 8 bytes of extended payload length
  std::uint8_t size = 0;
};

// The header of an unfragmented, unmasked server frame carrying `payload_size` bytes.
constexpr WsFrameHeader ServerFrameHeader(bool text, std::uint64_t payload_size) {
  WsFrameHeader header;
  constexpr unsigned char kFin = 0x80;
  constexpr unsigned char kText = 0x1;    // opcode %x1
  constexpr unsigned char kBinary = 0x2;  // opcode %x2
  header.bytes[0] = kFin | (text ? kText : kBinary);
  // Payload length: 0-125 in the 7 bits; 126 then 16 bits; 127 then 64 bits, network byte
  // order, always the shortest form (5.2: "the minimal number of bytes MUST be used").
  if (payload_size < 126) {
    header.bytes[1] = static_cast<unsigned char>(payload_size);
    header.size = 2;
  } else if (payload_size <= 0xFFFF) {
    header.bytes[1] = 126;
    header.bytes[2] = static_cast<unsigned char>(payload_size >> 8);
    header.bytes[3] = static_cast<unsigned char>(payload_size);
    header.size = 4;
  } else {
    header.bytes[1] = 127;
    for (int i = 0; i < 8; ++i) {
      header.bytes[2 + i] = static_cast<unsigned char>(payload_size >> (8 * (7 - i)));
    }
    header.size = 10;
  }
  return header;
}

}  // namespace melee::server
