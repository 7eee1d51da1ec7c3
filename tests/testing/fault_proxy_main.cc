// fault_proxy: tests/testing/fault_proxy.h as a program, for tests in other languages (the
// browser tests). It forwards 127.0.0.1:PORT (a free port, printed first) to the server's port and
// takes its faults as lines on stdin, answering each with "ok" (or "error: ...") on stdout:
//
//   fault_proxy --upstream 8080
//   listening on 41234
//   delay 40            every chunk 40 ms late (0: none)
//   trickle on|off      a few bytes per write
//   cut to_client|to_server N   each connection closed after N more frames that way (0: none)
//   reset               an RST on every open connection
//   blackhole | heal    a partition: nothing forwarded (open connections stay half-open) | over
//   stats               "connections N cuts M"
//
// It exits when stdin closes.

#include <CLI/CLI.hpp>
#include <chrono>
#include <exception>
#include <iostream>
#include <sstream>
#include <string>

#include "tests/testing/fault_proxy.h"

int main(int argc, char** argv) {
  using melee::testing::FaultProxy;
  uint16_t upstream = 0;
  CLI::App app{"fault_proxy — a fault-injecting TCP proxy on loopback (faults as lines on stdin)"};
  app.add_option("--upstream", upstream, "The server's port on 127.0.0.1")->required();
  CLI11_PARSE(app, argc, argv);

  FaultProxy proxy(upstream);
  std::cout << "listening on " << proxy.port() << std::endl;
  for (std::string line; std::getline(std::cin, line);) {
    std::istringstream words(line);
    std::string verb;
    std::string argument;
    words >> verb >> argument;
    try {
      if (verb == "delay") {
        proxy.SetDelay(std::chrono::milliseconds(std::stoi(argument.empty() ? "0" : argument)));
      } else if (verb == "trickle" && (argument == "on" || argument == "off")) {
        proxy.SetTrickle(argument == "on");
      } else if (verb == "cut" && (argument == "to_client" || argument == "to_server")) {
        int frames = 0;
        words >> frames;
        proxy.DropAfterFrames(argument == "to_client" ? FaultProxy::Direction::kToClient
                                                      : FaultProxy::Direction::kToServer,
                              frames);
      } else if (verb == "reset") {
        proxy.ResetAll();
      } else if (verb == "blackhole") {
        proxy.Blackhole();
      } else if (verb == "heal") {
        proxy.Heal();
      } else if (verb == "stats") {
        std::cout << "connections " << proxy.connections() << " cuts " << proxy.cuts() << "\n";
      } else if (!verb.empty()) {
        std::cout << "error: unknown fault '" << line << "'" << std::endl;
        continue;
      }
    } catch (const std::exception& error) {
      std::cout << "error: " << error.what() << " in '" << line << "'" << std::endl;
      continue;
    }
    std::cout << "ok" << std::endl;
  }
  return 0;
}
