#pragma once

// The live connections of one server: admission limits (total and per address) and the
// WebSocket sessions to close on shutdown. Thread-safe: every member locks mutex_.

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace melee::server {

// Something the server can ask to close politely (a WebSocket session).
class Closable {
 public:
  virtual ~Closable() = default;
  // Starts a clean close ("going away"); may be called from any thread, more than once.
  virtual void Shutdown() = 0;
};

class Connections {
 public:
  class Slot;

  Connections(std::size_t max_total, std::size_t max_per_address);

  // The connections over a limit that may be open at once only to be answered (a 503 naming
  // the limit, or GET /healthz) and closed: in all, and from one address.
  static constexpr std::size_t kMaxRefused = 64;
  static constexpr std::size_t kMaxRefusedPerAddress = 4;

  // Admits a new TCP connection from `address`; nullopt when a limit refuses it, and then
  // `*refusal` (when given) names the limit and its value. The connection counts until the
  // returned Slot is destroyed.
  std::optional<Slot> Admit(const std::string& address, std::string* refusal = nullptr);

  // Admits a connection from `address` that Admit refused, to be answered and closed: a Slot
  // with refused() set that counts in neither limit, or nullopt when kMaxRefused (or
  // kMaxRefusedPerAddress) such connections are open already or the server is closing.
  std::optional<Slot> AdmitRefused(const std::string& address);

  // Registers the WebSocket session running on `slot` so Shutdown reaches it.
  void Attach(const Slot& slot, std::weak_ptr<Closable> session);

  // Stops admitting, asks every attached session to close, and calls `on_idle` once no
  // connection is left (at once if none is open).
  void CloseAll(std::function<void()> on_idle);

  std::size_t open() const;

 private:
  void Release(std::size_t id, const std::string& address, bool refused);

  mutable std::mutex mutex_;
  const std::size_t max_total_;
  const std::size_t max_per_address_;
  std::size_t next_id_ = 1;
  std::size_t open_ = 0;
  bool closing_ = false;
  std::function<void()> on_idle_;
  std::map<std::string, std::size_t> per_address_;
  std::size_t refused_open_ = 0;
  std::map<std::string, std::size_t> refused_per_address_;
  std::map<std::size_t, std::weak_ptr<Closable>> sessions_;
};

// One admitted connection. Move-only; releases its place in Connections when destroyed.
class Connections::Slot {
 public:
  Slot(Slot&& other) noexcept;
  Slot& operator=(Slot&&) = delete;
  Slot(const Slot&) = delete;
  ~Slot();

  std::size_t id() const { return id_; }
  const std::string& address() const { return address_; }
  // True for a slot of AdmitRefused: the connection is only answered and closed.
  bool refused() const { return refused_; }

 private:
  friend class Connections;
  Slot(Connections* owner, std::size_t id, std::string address, bool refused);

  Connections* owner_;  // not owned; outlives every Slot
  std::size_t id_;
  std::string address_;
  bool refused_;
};

}  // namespace melee::server
