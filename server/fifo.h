#pragma once

// A first-in first-out queue on one vector, for the queues every match and session holds.
//
// libstdc++'s std::deque allocates its map and a 512-byte block as soon as it is constructed,
// so a queue that is empty almost all the time (a match's commands waiting for a commit, a
// session's frames waiting for a write) cost about 600 bytes per match and per connection.
// This one allocates nothing until the first push and keeps what it needs: a consumed prefix
// is dropped once it is half the vector, and the capacity once a large burst has drained.

#include <cstddef>
#include <utility>
#include <vector>

namespace melee::server {

template <class T>
class Fifo {
 public:
  bool empty() const { return head_ == items_.size(); }
  size_t size() const { return items_.size() - head_; }

  T& front() { return items_[head_]; }
  const T& front() const { return items_[head_]; }
  T& back() { return items_.back(); }
  // The item `i` places behind the front (i < size()).
  T& operator[](size_t i) { return items_[head_ + i]; }

  void push_back(T item) { items_.push_back(std::move(item)); }

  // Drops the front item (the queue must not be empty).
  void pop_front() {
    items_[head_] = T();
    ++head_;
    if (head_ == items_.size()) {
      items_.clear();
      head_ = 0;
      if (items_.capacity() > kKeptCapacity) std::vector<T>().swap(items_);
    } else if (head_ >= kKeptCapacity && head_ * 2 >= items_.size()) {
      items_.erase(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
  }

 private:
  // What a drained queue keeps for the next burst.
  static constexpr size_t kKeptCapacity = 16;
  std::vector<T> items_;
  size_t head_ = 0;
};

}  // namespace melee::server
