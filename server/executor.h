#pragma once

// The Asio executor and strand a match or a tournament runs on, without the rest of Asio and
// Beast (server/net.h): what server/match.h and server/tournaments.h need, so that the files
// that include them compile quickly.

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/strand.hpp>

namespace melee {

namespace asio = boost::asio;

}  // namespace melee
