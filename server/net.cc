// The compiled parts of Asio and Beast, once for the whole program.
//
// Every Melee target is built with BOOST_ASIO_SEPARATE_COMPILATION and
// BOOST_BEAST_SEPARATE_COMPILATION (the top-level CMakeLists.txt), so the libraries' non-template
// functions (the reactor, the scheduler, socket and TLS operations, HTTP parsing, the WebSocket
// handshake) are compiled here instead of in every translation unit that includes them; targets
// that use Asio link melee::net.

#include <boost/asio/impl/src.hpp>
#include <boost/asio/ssl/impl/src.hpp>
#include <boost/beast/src.hpp>
