// fuzz_seeds: writes the seed corpora of the fuzz targets (tests/fuzz/corpus/<target>/) from
// real commands, real requests and files exported from real matches, and prints how far each
// seed gets through its target.
//
//   build/tests/fuzz/fuzz_seeds tests/fuzz      (writes tests/fuzz/corpus/ and tests/fuzz/dict/)
//
// The set-ups and declarations are the integration tests' (tests/testing/*_commands.h, and
// match_test.cc's asl ones); the frames name the match and its tokens by the placeholders the
// targets replace ("@match", "@a", ...: frame_target.cc).

#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/check.h"
#include "melee/asl/v1/asl.pb.h"
#include "melee/storage/v1/match_file.pb.h"
#include "proto/codec/frame.h"
#include "server/transport/http_routes.h"
#include "tests/fuzz/targets.h"
#include "tests/fuzz/world.h"
#include "tests/testing/coc_commands.h"
#include "tests/testing/vv_commands.h"

namespace melee::fuzz {
namespace {

namespace fs = std::filesystem;
namespace v1 = melee::v1;

// ---- the commands of one match per ruleset --------------------------------------------------

// A squad of `owner` with morale 7 (as tests/testing/asl_commands.h).
melee::asl::v1::Unit Squad(const std::string& id, v1::Seat owner, int firepower) {
  melee::asl::v1::Unit unit;
  unit.set_id(id);
  unit.set_owner(owner);
  unit.set_kind(melee::asl::v1::UNIT_KIND_SQUAD);
  unit.set_firepower(firepower);
  unit.set_morale(7);
  return unit;
}

v1::ClientMessage AslPart(melee::asl::v1::Unit unit, bool with_location) {
  v1::ClientMessage message;
  melee::asl::v1::SideSetup& part = *message.mutable_submit_setup()->mutable_asl();
  if (with_location) {
    part.mutable_location()->set_name("G3");
    part.set_attacker(v1::SEAT_SIDE_A);
  }
  *part.add_units() = std::move(unit);
  return message;
}

v1::ClientMessage AslAnnounceNothing() {
  v1::ClientMessage message;
  message.mutable_announce()->mutable_asl();
  return message;
}

v1::ClientMessage AslSeal(const std::string& attacker, const std::string& target) {
  v1::ClientMessage message;
  v1::SealDeclaration& seal = *message.mutable_seal_declaration();
  seal.set_client_entropy(std::string(32, 'e'));
  melee::asl::v1::AttackOrder* order = seal.mutable_declaration()->mutable_asl()->add_attacks();
  order->add_attackers(attacker);
  order->add_targets(target);
  return message;
}

v1::ClientMessage Confirm() {
  v1::ClientMessage message;
  message.mutable_confirm_setup();
  return message;
}

// One command of a seed: the connection that sends it (0 side_a, 1 side_b, 2 director,
// 3 spectator, 4 none) and the message.
using Sent = std::pair<int, v1::ClientMessage>;

std::vector<Sent> MatchCommands(size_t ruleset) {
  std::vector<Sent> sent;
  if (ruleset == 0) {
    sent = {{0, AslPart(Squad("G1", v1::SEAT_SIDE_A, 6), true)},
            {1, AslPart(Squad("R1", v1::SEAT_SIDE_B, 4), false)},
            {0, Confirm()},
            {1, Confirm()},
            {0, AslAnnounceNothing()},
            {1, AslAnnounceNothing()},
            {1, AslSeal("R1", "G1")},
            {0, AslSeal("G1", "R1")}};
  } else if (ruleset == 1) {
    sent = {{0, testing::coc::SovietPart()},
            {1, testing::coc::GermanPart()},
            {0, Confirm()},
            {1, Confirm()},
            {1, testing::coc::SealCocDeclare()},
            {0, testing::coc::SealCocDeclare(/*advance=*/true)},
            {1, testing::coc::SealPlace({"german_rifles"}, {"german_lmg"})}};
  } else {
    using testing::vv::VvUse;
    sent = {{0, testing::vv::GermanPart()},
            {1, testing::vv::AmericanPart()},
            {0, Confirm()},
            {1, Confirm()},
            {1, testing::vv::SealDeclare({}, "Coleman", {VvUse("US-HS", "LMG", false)})},
            {0, testing::vv::SealDeclare({"G1", "G2", "G3", "Schmidt"}, "Schmidt",
                                         {VvUse("G1", "", true)})}};
  }
  v1::ClientMessage flag;
  flag.mutable_flag_for_director()->set_seq(2);
  flag.mutable_flag_for_director()->set_comment("look at this");
  sent.emplace_back(3, flag);
  sent.emplace_back(0, flag);
  return sent;
}

// Sets the command id, and the command's match_id to `match_id` where it has one.
void Address(v1::ClientMessage& message, int number, const std::string& match_id) {
  message.set_command_id("c" + std::to_string(number));
  const auto* field = v1::ClientMessage::descriptor()->FindFieldByNumber(message.command_case());
  if (field == nullptr || field->message_type() == nullptr) return;
  google::protobuf::Message* command = message.GetReflection()->MutableMessage(&message, field);
  const auto* match_field = command->GetDescriptor()->FindFieldByName("match_id");
  if (match_field != nullptr) command->GetReflection()->SetString(command, match_field, match_id);
}

// ---- writing ---------------------------------------------------------------------------------

std::string Little16(size_t value) {
  MELEE_CHECK(value < 0x10000);
  return {static_cast<char>(value & 0xff), static_cast<char>(value >> 8)};
}

void Write(const fs::path& dir, const std::string& name, const std::string& bytes,
           Reached (*target)(std::string_view)) {
  fs::create_directories(dir);
  std::ofstream(dir / name, std::ios::binary) << bytes;
  const Reached reached = target(bytes);
  std::cout << (dir.filename() / name).string() << ": " << bytes.size() << " bytes, "
            << reached.parsed << " parsed, " << reached.accepted << " accepted" << std::endl;
}

std::string FrameSeed(size_t ruleset, const std::vector<Sent>& sent, bool text) {
  std::string seed(1, static_cast<char>(ruleset));
  int number = 0;
  for (Sent one : sent) {
    Address(one.second, ++number, "@match");
    const std::string frame = proto::EncodeClientMessage(
        one.second, text ? proto::FrameKind::kText : proto::FrameKind::kBinary);
    seed += static_cast<char>(one.first | (text ? 0x80 : 0));
    seed += Little16(frame.size()) + frame;
  }
  return seed;
}

void WriteFrameSeeds(const fs::path& dir) {
  constexpr std::array<const char*, 3> kNames = {"asl", "coc", "vv"};
  v1::ClientMessage hello;
  hello.mutable_hello()->set_protocol_version(1);
  v1::ClientMessage ping;
  ping.mutable_ping()->set_nonce(7);
  v1::ClientMessage create;
  create.mutable_create_match()->mutable_settings()->set_ruleset("coc");
  create.mutable_create_match()->mutable_settings()->set_title("a title");
  const std::vector<Sent> connection_only = {{4, hello}, {4, ping}, {4, create}};
  Write(dir, "hello-binary", FrameSeed(3, connection_only, false), FuzzFrame);
  Write(dir, "hello-text", FrameSeed(3, connection_only, true), FuzzFrame);
  for (size_t ruleset = 0; ruleset < kNames.size(); ++ruleset) {
    const std::vector<Sent> sent = MatchCommands(ruleset);
    Write(dir, std::string(kNames[ruleset]) + "-play-text", FrameSeed(ruleset, sent, true),
          FuzzFrame);
    Write(dir, std::string(kNames[ruleset]) + "-play-binary", FrameSeed(ruleset, sent, false),
          FuzzFrame);
  }
  // A connection that joins by itself: side A's seat, then a resume, then the spectator link.
  v1::ClientMessage join;
  join.mutable_join_seat()->set_seat_token("@a");
  v1::ClientMessage resume;
  resume.mutable_resume()->set_after_seq(1);
  v1::ClientMessage spectate;
  spectate.mutable_spectate()->set_spectator_key("@s");
  Write(dir, "join-text", FrameSeed(0, {{4, join}, {4, resume}, {5, spectate}}, true), FuzzFrame);
}

void WriteRulesetSeeds(const fs::path& dir) {
  constexpr std::array<const char*, 3> kNames = {"asl", "coc", "vv"};
  for (size_t ruleset = 0; ruleset < kNames.size(); ++ruleset) {
    // Of the states where the rules wait for someone: the first, one in the middle, the last.
    std::vector<size_t> waiting;
    for (size_t index = 0; index < RulesetStates(ruleset); ++index) {
      if (!RulesetDefaults(ruleset, index).empty()) waiting.push_back(index);
    }
    MELEE_CHECK_MSG(!waiting.empty(), "the examples wait for the players");
    for (size_t index : {waiting.front(), waiting[waiting.size() / 2], waiting.back()}) {
      std::string seed(1, static_cast<char>(ruleset));
      seed += Little16(index);
      seed += static_cast<char>(index);  // the dice seed
      // Each default as bytes (a real command for the fuzzer to change), then the rules
      // defaults of three more steps.
      for (const auto& [seat, logged] : RulesetDefaults(ruleset, index)) {
        seed += static_cast<char>(seat) + Little16(logged.size()) + logged;
      }
      for (int step = 0; step < 3; ++step) seed += std::string(1, '\x02') + Little16(0);
      Write(dir, std::string(kNames[ruleset]) + "-state-" + std::to_string(index), seed,
            FuzzRuleset);
    }
  }
}

std::string Request(const std::string& method, const std::string& target,
                    const std::string& headers = "", const std::string& body = "") {
  std::string request = method + " " + target + " HTTP/1.1\r\nHost: localhost\r\n" + headers;
  if (!body.empty() || method == "POST") {
    request +=
        "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  }
  return request + "\r\n" + body;
}

// Plays each ruleset's match with the server's committed dice, as production does, and returns
// its files as the director and as side A export them.
std::vector<std::pair<std::string, std::string>> ExportedFiles() {
  constexpr std::array<const char*, 3> kNames = {"asl", "coc", "vv"};
  std::vector<std::pair<std::string, std::string>> files;
  for (size_t ruleset = 0; ruleset < kNames.size(); ++ruleset) {
    World world(/*seeded_dice=*/false);
    const CreatedMatch match = world.CreateMatch(kNames[ruleset]);
    std::array<server::ConnectionState, 2> seats;
    const std::array<std::string, 2> tokens = {match.side_a_token, match.side_b_token};
    for (size_t i = 0; i < seats.size(); ++i) {
      v1::ClientMessage join;
      join.set_command_id("join");
      join.mutable_join_seat()->set_match_id(match.match_id);
      join.mutable_join_seat()->set_seat_token(tokens[i]);
      world.Dispatch(join, seats[i]);
    }
    int number = 0;
    for (Sent one : MatchCommands(ruleset)) {
      if (one.first > 1) continue;
      Address(one.second, ++number, match.match_id);
      world.Dispatch(one.second, seats[one.first]);
    }
    for (const auto& [who, token] :
         {std::pair<std::string, std::string>{"director", match.director_token},
          {"side-a", match.side_a_token}}) {
      server::HttpRequest request{boost::beast::http::verb::get,
                                  "/api/matches/" + match.match_id + "/export", 11};
      request.set(boost::beast::http::field::authorization, "Bearer " + token);
      auto answer = std::make_shared<Awaited<server::HttpResponse>>();
      server::HandleHttpRequest(
          request, "127.0.0.1", world.context(),
          [answer](server::HttpResponse response) { answer->Set(std::move(response)); });
      world.RunUntil([&answer] { return answer->ready(); });
      const server::HttpResponse response = answer->Take();
      MELEE_CHECK_MSG(response.result_int() == 200, "a seat exports its match");
      files.emplace_back(std::string(kNames[ruleset]) + "-" + who + ".json", response.body());
    }
  }
  return files;
}

void WriteMatchFileAndHttpSeeds(const fs::path& match_file_dir, const fs::path& http_dir) {
  const auto files = ExportedFiles();
  for (const auto& [name, text] : files) Write(match_file_dir, name, text, FuzzMatchFile);

  const std::string bearer = "Authorization: Bearer ";
  Write(http_dir, "health-metrics-key",
        std::string(1, '\x03') + Request("GET", "/healthz") + Request("HEAD", "/metrics") +
            Request("GET", "/api/server-key"),
        FuzzHttp);
  Write(http_dir, "create-match",
        std::string(1, '\x03') + Request("POST", "/api/matches", "Idempotency-Key: k1\r\n",
                                         R"({"ruleset":"vv","title":"seed","variant":"board"})"),
        FuzzHttp);
  Write(http_dir, "static-files",
        std::string(1, '\x03') + Request("GET", "/") + Request("GET", "/match.html?x=1") +
            Request("HEAD", "/sdk/../style.css") + Request("GET", "/nothing-here.js"),
        FuzzHttp);
  Write(http_dir, "match-routes",
        std::string(1, '\x00') + Request("GET", "/api/matches/@match/export", bearer + "@d\r\n") +
            Request("GET", "/api/matches/@match/replay", bearer + "@s\r\n") +
            Request("GET", "/api/matches/@match/audit", bearer + "@d\r\n") +
            Request("GET", "/api/matches/@match/notifications", bearer + "@a\r\n") +
            Request("POST", "/api/matches/@match/result", bearer + "@d\r\n",
                    R"({"winner":"SEAT_SIDE_A"})") +
            Request("POST", "/api/matches/@match/preview", bearer + "@a\r\n", "{}"),
        FuzzHttp);
  Write(http_dir, "inbox-roster-tournament",
        std::string(1, '\x01') +
            Request("POST", "/api/inbox", "", R"({"seats":[{"match_id":"@match","token":"@b"}]})") +
            Request("POST", "/api/rosters/read", "",
                    R"({"ruleset":"coc","seat":"SEAT_SIDE_A","text":"squad A1"})") +
            Request("POST", "/api/tournaments", "", R"({"name":"cup"})"),
        FuzzHttp);
  Write(http_dir, "import",
        std::string(1, '\x03') + Request("POST", "/api/matches/import", "", files[0].second),
        FuzzHttp);
  Write(http_dir, "chunked-close",
        std::string(1, '\x02') +
            "POST /api/matches HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n"
            "Connection: close\r\n\r\n10\r\n{\"ruleset\":\"asl\"\r\n1\r\n}\r\n0\r\n\r\n",
        FuzzHttp);
}

// ---- dictionaries ------------------------------------------------------------------------------

// Adds the JSON names of every field and every enum value `type` reaches, quoted as JSON keys
// and strings are.
void CollectNames(const google::protobuf::Descriptor* type, std::set<std::string>& names,
                  std::set<const google::protobuf::Descriptor*>& seen) {
  if (!seen.insert(type).second) return;
  for (int i = 0; i < type->field_count(); ++i) {
    const google::protobuf::FieldDescriptor* field = type->field(i);
    names.insert("\"" + field->name() + "\":");
    names.insert("\"" + field->json_name() + "\":");
    if (field->enum_type() != nullptr) {
      for (int v = 0; v < field->enum_type()->value_count(); ++v) {
        names.insert("\"" + field->enum_type()->value(v)->name() + "\"");
      }
    }
    if (field->message_type() != nullptr) CollectNames(field->message_type(), names, seen);
  }
}

// Writes a libFuzzer dictionary: every name `types` reach, and `extra`, one per line.
void WriteDictionary(const fs::path& path,
                     const std::vector<const google::protobuf::Descriptor*>& types,
                     const std::vector<std::string>& extra) {
  std::set<std::string> names(extra.begin(), extra.end());
  std::set<const google::protobuf::Descriptor*> seen;
  for (const auto* type : types) CollectNames(type, names, seen);
  fs::create_directories(path.parent_path());
  std::ofstream out(path);
  out << "# Written by fuzz_seeds (tests/fuzz/seeds.cc): JSON names of the messages this target "
         "reads.\n";
  for (const std::string& name : names) {
    out << "\"";
    for (char c : name) {
      if (c == '"' || c == '\\') out << '\\';
      out << c;
    }
    out << "\"\n";
  }
  std::cout << path.string() << ": " << names.size() << " entries" << std::endl;
}

void WriteDictionaries(const fs::path& dir) {
  const std::vector<std::string> placeholders = {"\"@match\"", "\"@a\"", "\"@b\"", "\"@d\"",
                                                 "\"@s\""};
  WriteDictionary(dir / "frame.dict", {v1::ClientMessage::descriptor()}, placeholders);
  WriteDictionary(dir / "match_file.dict", {melee::storage::v1::MatchFile::descriptor()}, {});
  std::vector<std::string> http = {"GET ",
                                   "HEAD ",
                                   "POST ",
                                   "PUT ",
                                   "DELETE ",
                                   "OPTIONS ",
                                   " HTTP/1.1\r\n",
                                   " HTTP/1.0\r\n",
                                   "\r\n",
                                   "\r\n\r\n",
                                   "Host: ",
                                   "Content-Length: ",
                                   "Transfer-Encoding: chunked\r\n",
                                   "Connection: close\r\n",
                                   "Connection: keep-alive\r\n",
                                   "Authorization: Bearer ",
                                   "Idempotency-Key: ",
                                   "Content-Type: application/json\r\n",
                                   "Upgrade: websocket\r\n",
                                   "Accept-Encoding: gzip\r\n",
                                   "If-None-Match: ",
                                   "Range: bytes=",
                                   "/healthz",
                                   "/metrics",
                                   "/api/server-key",
                                   "/api/matches",
                                   "/api/matches/",
                                   "/api/matches/import",
                                   "/api/inbox",
                                   "/api/rosters/read",
                                   "/api/tournaments",
                                   "/api/tournaments/",
                                   "/export",
                                   "/audit",
                                   "/replay",
                                   "/result",
                                   "/preview",
                                   "/notifications",
                                   "/ws",
                                   "/index.html",
                                   "/match.html",
                                   "/sdk/",
                                   "%2e%2e/",
                                   "../",
                                   "?",
                                   "@match",
                                   "@a",
                                   "@b",
                                   "@d",
                                   "@s"};
  for (std::string& token : http) {
    std::string quoted = "\"";
    for (char c : token) {
      if (c == '\r') {
        quoted += "\\x0D";
      } else if (c == '\n') {
        quoted += "\\x0A";
      } else {
        quoted += c;
      }
    }
    token = quoted + "\"";
  }
  std::set<std::string> names;
  std::set<const google::protobuf::Descriptor*> seen;
  CollectNames(v1::MatchSettings::descriptor(), names, seen);
  fs::create_directories(dir);
  std::ofstream out(dir / "http.dict");
  out << "# Written by fuzz_seeds (tests/fuzz/seeds.cc): HTTP tokens, the routes, and the JSON "
         "names of MatchSettings.\n";
  for (const std::string& token : http) out << token << "\n";
  for (const std::string& name : names) {
    out << "\"";
    for (char c : name) {
      if (c == '"' || c == '\\') out << '\\';
      out << c;
    }
    out << "\"\n";
  }
}

}  // namespace
}  // namespace melee::fuzz

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: fuzz_seeds <folder, e.g. tests/fuzz>: writes corpus/ and dict/ there\n";
    return 2;
  }
  const std::filesystem::path corpus = std::filesystem::path(argv[1]) / "corpus";
  melee::fuzz::WriteFrameSeeds(corpus / "frame");
  melee::fuzz::WriteRulesetSeeds(corpus / "ruleset");
  melee::fuzz::WriteMatchFileAndHttpSeeds(corpus / "match_file", corpus / "http");
  melee::fuzz::WriteDictionaries(std::filesystem::path(argv[1]) / "dict");
  return 0;
}
