#pragma once

// Match files (proto/melee/storage/v1/match_file.proto; docs/fair-play.md): their format, below
// both the match that writes them (Match::Export) and the verifier that reads them
// (server/fair_play/verify.h): reading and writing a file, the manifest its signature covers,
// what a seat's file says of an event it redacts, and a file's events as the store holds them.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/result.h"
#include "melee/storage/v1/match_file.pb.h"
#include "persistence/event_store.h"

namespace melee::server {

// Format 2 signs every event's hash and the whole file (header, times, redactions, journal).
// Format 1 files (before 2026-11) still verify when complete; with redacted events they are
// refused, since the events before a redacted one were not protected.
inline constexpr std::string_view kMatchFileFormat = "melee-match-file/2";
inline constexpr std::string_view kMatchFileFormatV1 = "melee-match-file/1";

// Why a session ended, as its SessionRecord says, when it ended cleanly: the client closed it
// (a one-shot PBEM command does, every time) or the server shut down. The audit counts every
// other ending as a disconnect.
inline constexpr std::string_view kClosedByClient = "closed by the client";
inline constexpr std::string_view kServerShuttingDown = "server shutting down";
inline constexpr std::string_view kClosedByServer = "closed by the server: ";

// The text a format-2 file's `file_signature` signs: "melee/v2/file|<match_id>|<hex SHA-256 of
// FileManifest(file)>".
std::string FileSignedMessage(const melee::storage::v1::MatchFile& file);
// The manifest of a match file: one line (ending in "\n") per header field, per event (seq, hash,
// time, visible or redacted with its kind and seat), for the head signature and per session
// record; docs/fair-play.md "The file's signature" gives its exact form.
std::string FileManifest(const melee::storage::v1::MatchFile& file);

// What a seat's file says of an event it redacts: "declaration_sealed" (a seal not revealed
// yet), "command" (the first event of another command), "ruleset_event", "setup_submitted" or
// "director_flag"; and whose command it was.
struct RedactedKind {
  std::string kind;
  melee::storage::v1::Seat seat = melee::storage::v1::SEAT_UNSPECIFIED;
};
RedactedKind RedactedKindOf(const melee::storage::v1::StoredEvent& stored);

// Reads a match file (its JSON form); the error says what is wrong.
engine::Result<melee::storage::v1::MatchFile> ParseMatchFile(std::string_view text);
// The JSON form of `file`, indented for people, ending in a newline.
std::string MatchFileJson(const melee::storage::v1::MatchFile& file);

// The events of a file as the event store holds them (for import and replay).
std::vector<persistence::Event> EventsOf(const melee::storage::v1::MatchFile& file);

// Returns the hash a file's hash field holds, or nothing when it is not 32 bytes (the file is
// untrusted).
std::optional<persistence::Hash> HashOfBytes(std::string_view bytes);

}  // namespace melee::server
