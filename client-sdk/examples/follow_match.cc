// follow_match: the smallest program on melee::client::Client. It follows one match (with a
// seat token, or with --spectate and the spectator key) and prints every event and what the
// match waits for, until the close combat is over. Reconnection and resume are the client's.
//
//   follow_match ws://127.0.0.1:8080/ws MATCH_ID TOKEN [--spectate]
//
// Exit codes: 0 the close combat is over; 1 the server refused the token; 2 usage.

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <cstdlib>
#include <iostream>
#include <string>

#include "client-sdk/client.h"

int main(int argc, char** argv) {
  if (argc < 4 || argc > 5 || (argc == 5 && std::string(argv[4]) != "--spectate")) {
    std::cerr << "usage: follow_match URL MATCH_ID TOKEN [--spectate]\n";
    return 2;
  }
  boost::asio::io_context io;
  const melee::client::SeatAddress seat{.url = argv[1], .match_id = argv[2], .token = argv[3],
                                        .spectate = argc == 5};
  auto client = melee::client::Client::Create(io.get_executor(), seat);
  int code = 0;

  client->OnEvent([](const melee::v1::MatchEvent& event) {
    std::cout << "#" << event.seq();
    if (event.has_match_ended()) {
      std::cout << " the close combat is over: " << event.match_ended().summary();
    } else if (event.has_declarations_revealed()) {
      std::cout << " declarations revealed";
    } else if (event.has_asl() && !event.asl().text().empty()) {
      std::cout << " " << event.asl().text();
    } else {
      std::cout << " (" << event.GetDescriptor()->FindFieldByNumber(event.kind_case())->name()
                << ")";
    }
    std::cout << std::endl;  // flushed: someone may be reading through a pipe
  });
  client->OnView([&](const melee::v1::MatchView& view) {
    for (const std::string& waiting : view.waiting_for()) {
      std::cout << "  waiting for " << waiting << std::endl;
    }
    if (view.stage() == melee::v1::STAGE_ENDED) client->Stop();
  });
  client->OnState([&](melee::client::ConnectionState state, const std::string& detail) {
    if (state == melee::client::ConnectionState::kReconnecting) {
      std::cerr << "connection lost (" << detail << "); reconnecting\n";
    } else if (state == melee::client::ConnectionState::kStopped) {
      if (detail != "the client is stopped") {
        std::cerr << "stopped: " << detail << "\n";
        code = 1;
      }
      io.stop();
    }
  });

  boost::asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](const boost::system::error_code&, int) { client->Stop(); });
  client->Start();
  io.run();
  return code;
}
