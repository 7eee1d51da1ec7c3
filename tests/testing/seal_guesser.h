#pragma once

// The opponent's dictionary attack on a sealed declaration: the legal declarations of one
// Location are few, so an opponent who can compute anything the server derived from a sealed
// declaration can try every candidate. SealGuesser gathers every value of 32 bytes the opponent
// received (hashes, nonces, signatures' halves are not needed: any bytes field of that size, and
// any string of 64 hex digits) and tries a candidate every way an opponent could: SHA-256 of its
// bytes (the old receipt), of its JSON, and the seal scheme 2 commitment with each of those
// values taken as the nonce. A hiding commitment gives no candidate a match.

#include <openssl/sha.h>

#include <optional>
#include <set>
#include <string>
#include <utility>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <google/protobuf/reflection.h>

#include "melee/v1/envelope.pb.h"
#include "proto/codec/frame.h"
#include "proto/codec/json.h"
#include "tests/testing/match_client.h"

namespace melee::testing {

class SealGuesser {
 public:
  // Everything `observer` has received so far.
  explicit SealGuesser(const MatchClient& observer) {
    for (const melee::v1::ServerMessage& message : observer.received()) Collect(message);
  }
  // Exactly these values (to show the attack works on a guessable receipt).
  explicit SealGuesser(std::set<std::string> values) : values_(std::move(values)) {}

  // How the received values confirm `candidate`, if they do.
  std::optional<std::string> Confirms(const melee::v1::Declaration& candidate) const {
    const std::string bytes = proto::SerializeDeterministic(candidate);
    if (values_.count(Sha256(bytes)) != 0) return "SHA-256 of its bytes was received";
    if (values_.count(Sha256(proto::ToJson(candidate))) != 0) {
      return "SHA-256 of its JSON was received";
    }
    for (const std::string& nonce : values_) {
      if (values_.count(Sha256("melee/v2/seal|" + nonce + bytes)) != 0) {
        return "its commitment, with a received value as the nonce, was received";
      }
    }
    return std::nullopt;
  }

  size_t size() const { return values_.size(); }

  static std::string Sha256(const std::string& bytes) {
    unsigned char digest[SHA256_DIGEST_LENGTH];
    SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), digest);
    return std::string(reinterpret_cast<const char*>(digest), sizeof digest);
  }

 private:
  void Collect(const google::protobuf::Message& message) {
    namespace pb = google::protobuf;
    const pb::Reflection& reflection = *message.GetReflection();
    std::vector<const pb::FieldDescriptor*> fields;
    reflection.ListFields(message, &fields);
    for (const pb::FieldDescriptor* field : fields) {
      const int count = field->is_repeated() ? reflection.FieldSize(message, field) : 1;
      for (int i = 0; i < count; ++i) {
        if (field->cpp_type() == pb::FieldDescriptor::CPPTYPE_MESSAGE) {
          Collect(field->is_repeated() ? reflection.GetRepeatedMessage(message, field, i)
                                       : reflection.GetMessage(message, field));
        } else if (field->cpp_type() == pb::FieldDescriptor::CPPTYPE_STRING) {
          const std::string value = field->is_repeated()
                                        ? reflection.GetRepeatedString(message, field, i)
                                        : reflection.GetString(message, field);
          Add(value);
        }
      }
    }
  }

  void Add(const std::string& value) {
    if (value.size() == 32) values_.insert(value);
    // A hash written as hex in a text (64 hex digits anywhere in it).
    for (size_t start = 0; start + 64 <= value.size(); ++start) {
      std::string raw;
      for (size_t k = 0; k < 64; k += 2) {
        const int high = Digit(value[start + k]);
        const int low = Digit(value[start + k + 1]);
        if (high < 0 || low < 0) break;
        raw += static_cast<char>(high * 16 + low);
      }
      if (raw.size() == 32) values_.insert(raw);
    }
  }

  static int Digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  std::set<std::string> values_;
};

// Checks that nothing `observer` received confirms any of `candidates`, that the declaration
// really sealed (`sealed`) is among them, and that the same attack does find it when its
// unsalted SHA-256 is received (so the check has teeth).
inline ::testing::AssertionResult NoCandidateConfirmed(
    const MatchClient& observer, const std::vector<melee::v1::Declaration>& candidates,
    const melee::v1::Declaration& sealed) {
  const std::string sealed_bytes = proto::SerializeDeterministic(sealed);
  bool listed = false;
  for (const melee::v1::Declaration& candidate : candidates) {
    listed |= proto::SerializeDeterministic(candidate) == sealed_bytes;
  }
  if (!listed) return ::testing::AssertionFailure() << "the sealed declaration is no candidate";
  if (!SealGuesser({SealGuesser::Sha256(sealed_bytes)}).Confirms(sealed)) {
    return ::testing::AssertionFailure() << "the attack does not find an unsalted receipt";
  }
  const SealGuesser guesser(observer);
  if (guesser.size() == 0) return ::testing::AssertionFailure() << "nothing of 32 bytes received";
  for (const melee::v1::Declaration& candidate : candidates) {
    if (auto how = guesser.Confirms(candidate)) {
      return ::testing::AssertionFailure()
             << "the opponent can test a guess: " << *how << " for " << proto::ToJson(candidate);
    }
  }
  return ::testing::AssertionSuccess() << candidates.size() << " candidates, " << guesser.size()
                                       << " received values";
}

}  // namespace melee::testing
