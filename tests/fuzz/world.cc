#include "tests/fuzz/world.h"

#include <chrono>
#include <optional>
#include <thread>
#include <utility>

#include "engine/core/check.h"
#include "engine/core/dice.h"
#include "server/fair_play/verify.h"
#include "server/notify/notice_sinks.h"

namespace melee::fuzz {
namespace {

std::shared_ptr<persistence::SqliteEventStore> OpenMemoryStore() {
  auto store = persistence::SqliteEventStore::Open(":memory:");
  MELEE_CHECK_MSG(store.has_value(), "an in-memory SQLite store opens");
  return std::shared_ptr<persistence::SqliteEventStore>(std::move(*store));
}

server::ServerConfig FuzzConfig() {
  server::ServerConfig config;
  config.threads = 1;
  config.match_creations_per_minute = 0;  // no limit: the inputs create as many as they like
  config.deliver_webhooks = false;
#ifdef MELEE_SOURCE_DIR
  config.web_root = MELEE_SOURCE_DIR "/client-sdk/web";  // the static files' routes run too
#endif
  return config;
}

// Long enough for any answer of an in-memory store, even under ASan on a loaded machine, and
// shorter than scripts/fuzz's -timeout, so that a lost answer is reported as this check.
constexpr auto kAnswerDeadline = std::chrono::seconds(20);

}  // namespace

World::World(bool seeded_dice)
    : config_(FuzzConfig()),
      store_(OpenMemoryStore()),
      registry_(engine::BuiltinRegistry()),
      secrets_(persistence::ServerSecrets::Ephemeral()),
      webhooks_(std::make_shared<server::notify::Webhooks>(store_->notifications())),
      emails_(std::make_shared<server::notify::Emails>(store_->notifications(), false)),
      match_creations_(config_.match_creations_per_minute, config_.match_creation_burst),
      connections_(config_.max_connections, config_.max_connections_per_address),
      context_{config_,  metrics_,  connections_,     dispatcher_, *store_,
               matches_, *secrets_, match_creations_, *webhooks_,  *emails_},
      ioc_(1),
      matches_(ioc_.get_executor(),
               server::MatchServices{
                   .store = *store_,
                   .clock = clock_,
                   .metrics = metrics_,
                   .default_choice_deadline_seconds = config_.choice_deadline_seconds,
                   .default_declaration_deadline_seconds = config_.declaration_deadline_seconds,
                   .secrets = secrets_,
                   .dice_source = seeded_dice ? std::function<std::unique_ptr<engine::BitSource>()>(
                                                    [this]() -> std::unique_ptr<engine::BitSource> {
                                                      return std::make_unique<engine::SplitMix64>(
                                                          ++dice_draws_);
                                                    })
                                              : nullptr,
                   .recent_events = 48,
                   .lifeline = lifeline_,
                   .notices = std::make_shared<server::notify::NoticeSinks>(
                       std::vector<std::shared_ptr<server::NoticeSink>>{webhooks_, emails_})},
               registry_, &server::CheckImport),
      dispatcher_(registry_, config_.max_message_bytes, &matches_) {
  matches_.RecoverAll();
}

World::~World() {
  webhooks_->OnCommitted(nullptr);
  emails_->OnCommitted(nullptr);
  // As in ~Server: store callbacks still to come leave the matches alone.
  std::lock_guard lock(lifeline_->mutex);
  lifeline_->alive = false;
}

void World::RunUntil(const std::function<bool()>& done) {
  const auto deadline = std::chrono::steady_clock::now() + kAnswerDeadline;
  while (!done()) {
    MELEE_CHECK_MSG(std::chrono::steady_clock::now() < deadline,
                    "the server answers within the deadline");
    ioc_.restart();
    if (ioc_.poll() == 0) std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
  ioc_.restart();
  ioc_.poll();
}

std::vector<melee::v1::ServerMessage> World::Dispatch(const melee::v1::ClientMessage& message,
                                                      server::ConnectionState& connection) {
  auto answers = std::make_shared<Awaited<std::vector<melee::v1::ServerMessage>>>();
  // Handle may answer at once or from a match's strand: the handlers run on ioc_ in RunUntil.
  asio::post(ioc_, [&, answers] {
    dispatcher_.Handle(message, connection, [answers](std::vector<server::MessagePtr> replies) {
      std::vector<melee::v1::ServerMessage> copies;
      for (const server::MessagePtr& reply : replies) copies.push_back(reply->message());
      answers->Set(std::move(copies));
    });
  });
  RunUntil([&] { return answers->ready(); });
  return answers->Take();
}

CreatedMatch World::CreateMatch(const std::string& ruleset) {
  melee::v1::ClientMessage create;
  create.set_command_id("fuzz-create");
  create.mutable_create_match()->mutable_settings()->set_ruleset(ruleset);
  server::ConnectionState connection;
  const std::vector<melee::v1::ServerMessage> answers = Dispatch(create, connection);
  MELEE_CHECK_MSG(answers.size() == 1 && answers[0].has_match_created(),
                  "a match with default settings is created");
  const melee::v1::MatchCreated& created = answers[0].match_created();
  return CreatedMatch{created.match_id(), created.side_a_token(), created.side_b_token(),
                      created.director_token(), created.spectator_key()};
}

World& SharedWorld(int inputs_per_world) {
  static std::unique_ptr<World> world;
  static int inputs = 0;
  if (!world || ++inputs >= inputs_per_world) {
    world.reset();  // the old one goes first: one store and one set of matches at a time
    world = std::make_unique<World>();
    inputs = 0;
  }
  world->BeginInput();
  return *world;
}

}  // namespace melee::fuzz
