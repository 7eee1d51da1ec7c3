#include "server/connections.h"

#include <utility>
#include <vector>

namespace melee::server {

Connections::Slot::Slot(Connections* owner, std::size_t id, std::string address)
    : owner_(owner), id_(id), address_(std::move(address)) {}

Connections::Slot::Slot(Slot&& other) noexcept
    : owner_(std::exchange(other.owner_, nullptr)),
      id_(other.id_),
      address_(std::move(other.address_)) {}

Connections::Slot::~Slot() {
  if (owner_ != nullptr) owner_->Release(id_, address_);
}

Connections::Connections(std::size_t max_total, std::size_t max_per_address)
    : max_total_(max_total), max_per_address_(max_per_address) {}

std::optional<Connections::Slot> Connections::Admit(const std::string& address) {
  std::lock_guard lock(mutex_);
  if (closing_ || open_ >= max_total_) return std::nullopt;
  std::size_t& from_address = per_address_[address];
  if (from_address >= max_per_address_) return std::nullopt;
  ++from_address;
  ++open_;
  return Slot(this, next_id_++, address);
}

void Connections::Attach(const Slot& slot, std::weak_ptr<Closable> session) {
  std::lock_guard lock(mutex_);
  sessions_[slot.id()] = std::move(session);
}

void Connections::Release(std::size_t id, const std::string& address) {
  std::function<void()> idle;
  {
    std::lock_guard lock(mutex_);
    sessions_.erase(id);
    if (auto it = per_address_.find(address); it != per_address_.end() && --it->second == 0) {
      per_address_.erase(it);
    }
    --open_;
    if (closing_ && open_ == 0) idle = std::exchange(on_idle_, nullptr);
  }
  if (idle) idle();
}

void Connections::CloseAll(std::function<void()> on_idle) {
  std::vector<std::shared_ptr<Closable>> live;
  std::function<void()> idle_now;
  {
    std::lock_guard lock(mutex_);
    closing_ = true;
    for (auto& [id, weak] : sessions_) {
      if (auto session = weak.lock()) live.push_back(std::move(session));
    }
    if (open_ == 0) {
      idle_now = std::move(on_idle);
    } else {
      on_idle_ = std::move(on_idle);
    }
  }
  for (auto& session : live) session->Shutdown();
  if (idle_now) idle_now();
}

std::size_t Connections::open() const {
  std::lock_guard lock(mutex_);
  return open_;
}

}  // namespace melee::server
