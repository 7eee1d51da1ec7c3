#include "server/match_file.h"

#include <openssl/sha.h>

#include <algorithm>
#include <utility>

#include "persistence/fair_play.h"
#include "proto/codec/json.h"

namespace melee::server {
namespace {

namespace storage = melee::storage::v1;
using persistence::Hash;

}  // namespace

std::optional<Hash> HashOfBytes(std::string_view bytes) {
  if (bytes.size() != Hash{}.size()) return std::nullopt;
  Hash hash{};
  std::copy(bytes.begin(), bytes.end(), hash.begin());
  return hash;
}

engine::Result<storage::MatchFile> ParseMatchFile(std::string_view text) {
  storage::MatchFile file;
  const std::string error = proto::FromJson(text, file);
  if (!error.empty()) return engine::Reject("", "not a Melee match file: " + error);
  if (file.format() != kMatchFileFormat && file.format() != kMatchFileFormatV1) {
    return engine::Reject("", "format '" + file.format() + "' is not " +
                                  std::string(kMatchFileFormat) + " (nor the older " +
                                  std::string(kMatchFileFormatV1) + ")");
  }
  return file;
}

std::string FileManifest(const storage::MatchFile& file) {
  std::string text = file.format() + "\n";
  const auto field = [&](std::string_view name, const std::string& value) {
    text.append(name).append(" ").append(value).append("\n");
  };
  field("match_id", file.match_id());
  field("ruleset", file.ruleset());
  field("ruleset_version", file.ruleset_version());
  field("engine_version", file.engine_version());
  field("exported_for", file.exported_for());
  field("exported_unix_ms", std::to_string(file.exported_unix_ms()));
  field("server_public_key", persistence::BytesToHex(file.server_public_key()));
  for (const storage::FileEvent& event : file.events()) {
    text += "event " + std::to_string(event.seq()) + " " + persistence::BytesToHex(event.hash()) +
            " " + std::to_string(event.recorded_unix_ms());
    if (event.redacted()) {
      text += " redacted " + event.redacted_kind() + " " +
              storage::Seat_Name(event.redacted_seat());
    } else {
      text += " visible";
    }
    text += "\n";
  }
  text += "head " + std::to_string(file.head_signature().seq()) + " " +
          persistence::BytesToHex(file.head_signature().hash()) + "\n";
  for (const storage::SessionRecord& session : file.sessions()) {
    text += "session " + storage::Seat_Name(session.seat()) + " " +
            std::to_string(session.joined_unix_ms()) + " " +
            std::to_string(session.left_unix_ms()) + " " + session.reason() + "\n";
  }
  return text;
}

std::string FileSignedMessage(const storage::MatchFile& file) {
  const std::string manifest = FileManifest(file);
  Hash digest{};
  SHA256(reinterpret_cast<const unsigned char*>(manifest.data()), manifest.size(),
         digest.data());
  return "melee/v2/file|" + file.match_id() + "|" + persistence::ToHex(digest);
}

RedactedKind RedactedKindOf(const storage::StoredEvent& stored) {
  switch (stored.kind_case()) {
    case storage::StoredEvent::kSetupSubmitted:
      return {"setup_submitted", stored.setup_submitted().seat()};
    case storage::StoredEvent::kDirectorFlag:
      return {"director_flag", stored.director_flag().seat()};
    case storage::StoredEvent::kUnitsUpdated:
      return {"units_updated", stored.units_updated().seat()};
    case storage::StoredEvent::kRulesetEvent: {
      const storage::RulesetEvent& event = stored.ruleset_event();
      if (!event.has_cause()) return {"ruleset_event", storage::SEAT_UNSPECIFIED};
      return {event.cause().receipt().empty() ? "command" : "declaration_sealed",
              event.cause().seat()};
    }
    default:
      return {"event", storage::SEAT_UNSPECIFIED};
  }
}

std::string MatchFileJson(const storage::MatchFile& file) {
  return proto::ToJson(file, proto::JsonStyle::kPretty) + "\n";
}

std::vector<persistence::Event> EventsOf(const storage::MatchFile& file) {
  std::vector<persistence::Event> events;
  Hash prev = persistence::Genesis(file.match_id());
  for (const storage::FileEvent& in : file.events()) {
    persistence::Event event;
    event.match_id = file.match_id();
    event.seq = in.seq();
    event.payload = in.payload();
    event.prev_hash = prev;
    event.hash = HashOfBytes(in.hash()).value_or(Hash{});
    event.recorded_unix_ms = in.recorded_unix_ms();
    prev = event.hash;
    events.push_back(std::move(event));
  }
  return events;
}

}  // namespace melee::server
