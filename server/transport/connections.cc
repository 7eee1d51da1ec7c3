#include "server/transport/connections.h"

#include <utility>
#include <vector>

namespace melee::server {

Connections::Slot::Slot(Connections* owner, std::size_t id, std::string address, bool refused)
    : owner_(owner), id_(id), address_(std::move(address)), refused_(refused) {}

Connections::Slot::Slot(Slot&& other) noexcept
    : owner_(std::exchange(other.owner_, nullptr)),
      id_(other.id_),
      address_(std::move(other.address_)),
      refused_(other.refused_) {}

Connections::Slot::~Slot() {
  if (owner_ != nullptr) owner_->Release(id_, address_, refused_);
}

Connections::Connections(std::size_t max_total, std::size_t max_per_address)
    : max_total_(max_total), max_per_address_(max_per_address) {}

std::optional<Connections::Slot> Connections::Admit(const std::string& address,
                                                    std::string* refusal) {
  std::lock_guard lock(mutex_);
  const auto refuse = [&](std::string why) -> std::optional<Slot> {
    if (refusal != nullptr) *refusal = std::move(why);
    return std::nullopt;
  };
  if (closing_) return refuse("the server is shutting down");
  if (open_ >= max_total_) {
    return refuse("the server has its limit of " + std::to_string(max_total_) +
                  " open connections (--max-connections)");
  }
  const auto it = per_address_.find(address);
  if (it != per_address_.end() && it->second >= max_per_address_) {
    return refuse(std::to_string(max_per_address_) + " connections from " + address +
                  " are open, the limit per address (--max-connections-per-address)");
  }
  ++per_address_[address];
  ++open_;
  return Slot(this, next_id_++, address, false);
}

std::optional<Connections::Slot> Connections::AdmitRefused(const std::string& address) {
  std::lock_guard lock(mutex_);
  if (closing_ || refused_open_ >= kMaxRefused) return std::nullopt;
  std::size_t& from_address = refused_per_address_[address];
  if (from_address >= kMaxRefusedPerAddress) return std::nullopt;
  ++from_address;
  ++refused_open_;
  return Slot(this, next_id_++, address, true);
}

void Connections::Attach(const Slot& slot, std::weak_ptr<Closable> session) {
  std::lock_guard lock(mutex_);
  sessions_[slot.id()] = std::move(session);
}

void Connections::Release(std::size_t id, const std::string& address, bool refused) {
  if (refused) {
    std::lock_guard lock(mutex_);
    if (auto it = refused_per_address_.find(address);
        it != refused_per_address_.end() && --it->second == 0) {
      refused_per_address_.erase(it);
    }
    --refused_open_;
    return;
  }
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
