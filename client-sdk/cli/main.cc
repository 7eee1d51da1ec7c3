// melee: the command line of Melee, built on the client SDK. See README.md.
//
// Exit codes: 0 success; 1 the server answered with an Error, the rules refused a situation
// or declaration (`melee rules`), or a match file does not verify; 2 usage error (bad arguments, an unreadable or malformed
// situation file); 3 could not reach the server (connect, timeout, closed connection).

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>
#include <string>

#include "client-sdk/cli/fair_play_command.h"
#include "client-sdk/cli/inbox_command.h"
#include "client-sdk/cli/match_command.h"
#include "client-sdk/cli/rules_command.h"
#include "client-sdk/cli/tournament_command.h"
#include "client-sdk/sync_client.h"
#include "proto/codec/json.h"

namespace {

constexpr int kExitServerError = 1;
constexpr int kExitUnreachable = 3;

// `melee hello`: connects, says Hello, prints the server's versions and rulesets.
int RunHello(const std::string& url, const std::string& ca_file, bool json) {
  auto client = melee::client::SyncClient::Connect(
      url, melee::proto::FrameKind::kBinary, melee::client::SyncClient::kDefaultTimeout,
      {.ca_file = ca_file, .verify_peer = true});
  if (!client) {
    std::cerr << "melee: " << client.error().message << "\n";
    return kExitUnreachable;
  }
  melee::v1::ClientMessage hello;
  hello.mutable_hello()->set_protocol_version(1);
  hello.mutable_hello()->set_client_name("melee-cli");
  auto reply = (*client)->Call(hello);
  if (!reply) {
    std::cerr << "melee: " << reply.error().message << "\n";
    return kExitUnreachable;
  }
  if (reply->has_error()) {
    std::cerr << "melee: server refused: " << reply->error().message() << "\n";
    return kExitServerError;
  }
  (void)(*client)->Close();
  if (json) {
    std::cout << melee::proto::ToJson(reply->hello(), melee::proto::JsonStyle::kPretty);
    return EXIT_SUCCESS;
  }
  const melee::v1::HelloReply& info = reply->hello();
  std::cout << info.server_name() << " " << info.server_version() << ", protocol "
            << info.protocol_version() << " (serves " << info.min_protocol_version() << ".."
            << info.max_protocol_version() << ")\n";
  if (info.rulesets().empty()) {
    std::cout << "rulesets: none in this build yet\n";
  }
  for (const auto& ruleset : info.rulesets()) {
    std::cout << "ruleset " << ruleset.id() << " " << ruleset.version() << "\n";
  }
  return EXIT_SUCCESS;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "melee — play, watch and audit Melee close-combat matches.\n"
      "Exit codes: 0 ok, 1 the server or the rules refused, 2 usage error, 3 server "
      "unreachable."};
  app.require_subcommand(1);
  // The global options (--server, --ca-file) may come after the subcommand too, as in
  // `melee import FILE --server URL`: every subcommand, made below, inherits this.
  app.fallthrough();
  // The server: --server, else $MELEE_SERVER, else a server on this machine.
  const char* from_environment = std::getenv("MELEE_SERVER");
  std::string url = from_environment != nullptr && *from_environment != '\0'
                        ? from_environment
                        : "ws://127.0.0.1:8080/ws";
  app.add_option("--server", url,
                 "WebSocket URL of the server (default: $MELEE_SERVER, else this machine)")
      ->capture_default_str();
  const char* ca_from_environment = std::getenv("MELEE_CA_FILE");
  std::string ca_file = ca_from_environment != nullptr ? ca_from_environment : "";
  app.add_option("--ca-file", ca_file,
                 "wss://: a PEM file of certificates to trust instead of the system's (default: "
                 "$MELEE_CA_FILE)");

  bool json = false;
  CLI::App* hello = app.add_subcommand("hello", "Connect and print the server's versions");
  hello->add_flag("--json", json, "Print the HelloReply as JSON");

  melee::cli::RulesArgs rules_args;
  const melee::cli::RulesCommand rules(app, rules_args);

  melee::cli::MatchArgs match_args;
  const melee::cli::MatchCommands match(app, match_args);

  melee::cli::FairPlayArgs fair_play_args;
  const melee::cli::FairPlayCommands fair_play(app, fair_play_args);

  melee::cli::TournamentArgs tournament_args;
  const melee::cli::TournamentCommands tournament(app, tournament_args);

  melee::cli::InboxArgs inbox_args;
  const melee::cli::InboxCommand inbox(app, inbox_args);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    // --help and --version exit 0; every other parse error is a usage error.
    return app.exit(error) == 0 ? EXIT_SUCCESS : melee::cli::kExitUsage;
  }
  if (*hello) return RunHello(url, ca_file, json);
  if (rules.chosen()) return rules.Run(std::cout, std::cerr);
  if (fair_play.chosen()) {
    fair_play_args.server = url;
    fair_play_args.ca_file = ca_file;
    return fair_play.Run(std::cout, std::cerr);
  }
  if (tournament.chosen()) {
    tournament_args.server = url;
    tournament_args.ca_file = ca_file;
    return tournament.Run(std::cout, std::cerr);
  }
  if (inbox.chosen()) {
    inbox_args.ca_file = ca_file;
    return inbox.Run(std::cout, std::cerr);
  }
  if (match.chosen()) {
    match_args.server = url;
    match_args.ca_file = ca_file;
    return match.Run(std::cout, std::cerr);
  }
  return EXIT_SUCCESS;
}
