#pragma once

// The answer to every command a match applied, so that a retry of a command (same viewer, same
// command_id) gets the first answer and never a second application.
//
// A match keeps one answer per command it ever applied, so the book is packed: each answer is
// one record appended to a single byte string (the viewer, the command_id, the seq and, for a
// seal, its receipt, nonce and sealed bytes), and a flat hash set holds the records' offsets.
// An answer without a seal costs its command_id plus about 15 bytes (its record and its slot in
// the set), where a hash map of strings took about 170 (docs/benchmarks.md, "Where an active
// match's memory goes").

#include <boost/unordered/unordered_flat_set.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "engine/core/ruleset.h"

namespace melee::server {

class AnswerBook {
 public:
  // What a command was answered. The views point into the book: valid until the next Record.
  struct Answer {
    uint64_t seq = 0;             // the last event the command appended
    std::string_view receipt;     // a seal's commitment (empty for any other command)
    std::string_view seal_nonce;  // the seal's nonce
    std::string_view sealed;      // the sealed declaration's bytes
  };

  AnswerBook();
  // The set's hasher points at the book: it stays where it was made.
  AnswerBook(const AnswerBook&) = delete;
  AnswerBook& operator=(const AnswerBook&) = delete;

  // Records the answer to `viewer`'s command `command_id`, replacing an earlier one.
  void Record(engine::Viewer viewer, std::string_view command_id, const Answer& answer);

  // The answer recorded for `viewer`'s command `command_id`, if any.
  std::optional<Answer> Find(engine::Viewer viewer, std::string_view command_id) const;

  size_t size() const { return offsets_.size(); }
  // Heap bytes the book holds (for tests and benchmarks).
  size_t bytes() const;

 private:
  struct Key {
    engine::Viewer viewer;
    std::string_view command_id;
  };
  // The set holds offsets into records_ and hashes and compares them by the key they record.
  struct Hash {
    using is_transparent = void;
    const AnswerBook* book;
    size_t operator()(uint32_t offset) const { return (*this)(book->KeyAt(offset)); }
    size_t operator()(const Key& key) const;
  };
  struct Equal {
    using is_transparent = void;
    const AnswerBook* book;
    bool operator()(uint32_t a, uint32_t b) const { return a == b; }
    bool operator()(const Key& key, uint32_t offset) const;
    bool operator()(uint32_t offset, const Key& key) const { return (*this)(key, offset); }
  };

  Key KeyAt(uint32_t offset) const;
  Answer AnswerAt(uint32_t offset) const;

  std::string records_;
  boost::unordered_flat_set<uint32_t, Hash, Equal> offsets_;
};

}  // namespace melee::server
