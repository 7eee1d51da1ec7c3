#pragma once

// SharedValue<T>: an optional, immutable T whose copies share one instance. Copying is a
// reference count, not a deep copy; equality compares the values, as std::optional<T> does.
//
// For the parts of a state and its events that are written once and then only read and copied
// (a sealed declaration: the event records it, the state keeps it, every copy of the state
// carries it). Thread-safety: as std::shared_ptr<const T> (copies may live on any thread; the
// value is never modified).

#include <memory>
#include <optional>
#include <utility>

namespace melee::engine {

template <typename T>
class SharedValue {
 public:
  SharedValue() = default;
  SharedValue(std::nullopt_t) {}  // NOLINT(google-explicit-constructor): as std::optional.
  SharedValue(const T& value)     // NOLINT(google-explicit-constructor)
      : value_(std::make_shared<const T>(value)) {}
  SharedValue(T&& value)  // NOLINT(google-explicit-constructor)
      : value_(std::make_shared<const T>(std::move(value))) {}

  SharedValue& operator=(std::nullopt_t) {
    value_.reset();
    return *this;
  }
  SharedValue& operator=(const T& value) {
    value_ = std::make_shared<const T>(value);
    return *this;
  }
  SharedValue& operator=(T&& value) {
    value_ = std::make_shared<const T>(std::move(value));
    return *this;
  }

  // Returns true when a value is held.
  bool has_value() const { return value_ != nullptr; }
  explicit operator bool() const { return has_value(); }
  // Require has_value().
  const T& operator*() const { return *value_; }
  const T* operator->() const { return value_.get(); }
  const T& value() const { return *value_; }

  // Drops this copy's share of the value.
  void reset() { value_.reset(); }


  friend bool operator==(const SharedValue& a, const SharedValue& b) {
    if (a.value_ == b.value_) return true;
    if (!a.value_ || !b.value_) return false;
    return *a.value_ == *b.value_;
  }

 private:
  std::shared_ptr<const T> value_;
};

}  // namespace melee::engine
