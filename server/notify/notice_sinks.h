#pragma once

// Several NoticeSinks as one (a seat's webhook and its mail address each make their own outbox
// rows from the same notices): the match knows one sink, this hands every call to all of them.
//
// Thread-safe when the sinks are.

#include <memory>
#include <utility>
#include <vector>

#include "server/notices.h"

namespace melee::server::notify {

class NoticeSinks final : public NoticeSink {
 public:
  explicit NoticeSinks(std::vector<std::shared_ptr<NoticeSink>> sinks) : sinks_(std::move(sinks)) {}

  bool Wants(std::string_view match_id, engine::Seat seat) const override {
    for (const auto& sink : sinks_) {
      if (sink->Wants(match_id, seat)) return true;
    }
    return false;
  }
  std::vector<persistence::OutboxNotice> Outbox(const MatchNotices& notices) override {
    std::vector<persistence::OutboxNotice> rows;
    for (const auto& sink : sinks_) {
      std::vector<persistence::OutboxNotice> more = sink->Outbox(notices);
      rows.insert(rows.end(), std::make_move_iterator(more.begin()),
                  std::make_move_iterator(more.end()));
    }
    return rows;
  }
  void Committed() override {
    for (const auto& sink : sinks_) sink->Committed();
  }

 private:
  const std::vector<std::shared_ptr<NoticeSink>> sinks_;
};

}  // namespace melee::server::notify
