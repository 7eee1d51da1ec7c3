// fuzz_match_file: a match file, as `melee verify` reads it: ParseMatchFile (the JSON form),
// then VerifyMatchFile with the built-in hosts, then the import check a server runs on an
// uploaded file. The seeds are files exported from real matches (tests/fuzz/seeds.cc).
//
// What must hold, besides no crash: a file that parses writes back as JSON that parses to the
// same file; the report of a file that fails names why; verifying is deterministic; a file
// the import accepts is one that verifies.

#include <string>

#include "engine/core/check.h"
#include "proto/codec/frame.h"
#include "server/fair_play/verify.h"
#include "server/hosts.h"
#include "server/match_file.h"
#include "tests/fuzz/targets.h"

namespace melee::fuzz {

Reached FuzzMatchFile(std::string_view input) {
  Reached reached;
  auto file = server::ParseMatchFile(input);
  if (!file) return reached;
  ++reached.parsed;

  const std::string bytes = proto::SerializeDeterministic(*file);
  auto again = server::ParseMatchFile(server::MatchFileJson(*file));
  MELEE_CHECK_MSG(again.has_value(), "a match file's JSON form parses");
  MELEE_CHECK_MSG(proto::SerializeDeterministic(*again) == bytes,
                  "a match file's JSON form parses to the same file");

  static const server::HostLookup hosts = server::BuiltinHosts();
  const server::VerifyReport report = server::VerifyMatchFile(*file, hosts);
  MELEE_CHECK_MSG(report.ok || !report.reason.empty(), "a failed verification says why");
  (void)report.Describe();
  const server::VerifyReport twice = server::VerifyMatchFile(*file, hosts);
  MELEE_CHECK_MSG(twice.ok == report.ok && twice.failed_seq == report.failed_seq &&
                      twice.reason == report.reason,
                  "verifying a file is deterministic");
  if (report.ok) ++reached.accepted;

  const auto imported = server::CheckImport(*file, hosts);
  MELEE_CHECK_MSG(!imported.has_value() || report.ok, "an imported file is one that verifies");
  return reached;
}

}  // namespace melee::fuzz
