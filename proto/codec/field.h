#pragma once

// Where a value sits in a message, for the error that names it ("set-up.units[2].firepower").
// A codec reads a whole situation, unit by unit and field by field, and names the field of the
// first bad value; the name is written only then, so a read that succeeds builds no string.
// (Built eagerly, one per value read, the names cost a tenth of the server's instructions.)
//
//   Result<Unit> UnitFromProto(const v1::Unit& message, const Field& field) {
//     if (auto r = CheckRange(message.firepower(), 0, 99, field.Child("firepower")); !r) ...
//     const Field weapon = field.Child("support_weapons", i);   // "<field>.support_weapons[i]"
//   }
//   UnitFromProto(unit, "set-up.units[0]");   // a root: a literal, or a string (copied)
//
// A child points at its parent and keeps its name as a view: make children of a Field that
// outlives them (a parameter, a local), never of a temporary (`field.Child("a").Child("b")` does
// not compile; name the first), and name them with literals.

#include <string>
#include <string_view>

namespace melee::proto {

class Field {
 public:
  // A root: a literal is kept as it is, a string is copied.
  Field(const char* root) : part_(root) {}  // NOLINT(google-explicit-constructor)
  Field(std::string root)                   // NOLINT(google-explicit-constructor)
      : owned_(std::move(root)), part_(owned_) {}

  Field(const Field&) = delete;
  Field& operator=(const Field&) = delete;

  // "<this>.name", "<this>.name[index]" and "<this>[index]".
  Field Child(std::string_view name) const& { return Field(this, name, kNoIndex); }
  Field Child(std::string_view name, int index) const& { return Field(this, name, index); }
  Field Item(int index) const& { return Field(this, {}, index); }
  Field Child(std::string_view) const&& = delete;
  Field Child(std::string_view, int) const&& = delete;
  Field Item(int) const&& = delete;

  // The path as an error names it.
  std::string Text() const {
    std::string text;
    Append(text);
    return text;
  }

 private:
  static constexpr int kNoIndex = -1;

  Field(const Field* parent, std::string_view name, int index)
      : parent_(parent), part_(name), index_(index) {}

  void Append(std::string& text) const {
    if (parent_ != nullptr) {
      parent_->Append(text);
      if (!part_.empty()) text += '.';
    }
    text += part_;
    if (index_ != kNoIndex) {
      text += '[';
      text += std::to_string(index_);
      text += ']';
    }
  }

  const Field* parent_ = nullptr;
  std::string owned_;
  std::string_view part_;
  int index_ = kNoIndex;
};

}  // namespace melee::proto
