// Micro-benchmarks of fair play's cryptography (persistence/fair_play.h): what committed dice
// and signatures cost the server per step, per die and per close combat.
//
//   build/bench/fair_play_bench --benchmark_min_time=0.2

#include <benchmark/benchmark.h>

#include "persistence/fair_play.h"

namespace melee::persistence {
namespace {

// One d6 from a step's seed: one HMAC-SHA256 of a ~90-byte message.
void BM_CommittedD6(benchmark::State& state) {
  CommittedDice dice(Seed{1, 2, 3}, "m0123456789abcdef0123", 1, std::string(32, 'a'),
                     std::string(32, 'b'));
  for (auto _ : state) benchmark::DoNotOptimize(dice.RollDie("bench"));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CommittedD6);

// A match's chain at creation: 4096 SHA-256 from the top seed down to the commitment.
void BM_SeedChainBuild(benchmark::State& state) {
  for (auto _ : state) {
    SeedChain chain(Seed{9}, kDiceChainLength);
    benchmark::DoNotOptimize(chain.commitment());
  }
}
BENCHMARK(BM_SeedChainBuild)->Unit(benchmark::kMicrosecond);

// A step's seed, worst case: its 256-step block is not the cached one, so the block's every
// 16th seed is walked down from the checkpoint above it (255 SHA-256) and then the step's run of
// 16 (up to 15 more). Steps 1 and 257 are in different blocks: every lookup here misses.
void BM_SeedOfAStepUncached(benchmark::State& state) {
  const SeedChain chain(Seed{9}, kDiceChainLength);
  uint64_t step = 1;
  for (auto _ : state) {
    benchmark::DoNotOptimize(chain.At(step));
    step = step == 1 ? 257 : 1;
  }
}
BENCHMARK(BM_SeedOfAStepUncached)->Unit(benchmark::kMicrosecond);

// A match's steps one after the other through the whole chain: what a step costs on average
// (a new block every 256 steps, a new run every 16).
void BM_SeedOfAStepAscending(benchmark::State& state) {
  const SeedChain chain(Seed{9}, kDiceChainLength);
  uint64_t step = 1;
  for (auto _ : state) {
    benchmark::DoNotOptimize(chain.At(step));
    step = step == kDiceChainLength ? 1 : step + 1;
  }
}
BENCHMARK(BM_SeedOfAStepAscending);

// A step's seed when its run is the cached one (15 lookups in 16 of a match's ascending
// steps): a lock and a copy, no hashing.
void BM_SeedOfAStepCached(benchmark::State& state) {
  const SeedChain chain(Seed{9}, kDiceChainLength);
  benchmark::DoNotOptimize(chain.At(1));
  for (auto _ : state) benchmark::DoNotOptimize(chain.At(2));
}
BENCHMARK(BM_SeedOfAStepCached);

// The server signs the head when a close combat ends, and every export.
void BM_SignHead(benchmark::State& state) {
  const auto secrets = ServerSecrets::Ephemeral();
  const std::string message = HeadMessage("m0123456789abcdef0123", 42, Hash{7});
  for (auto _ : state) benchmark::DoNotOptimize(secrets->Sign(message));
}
BENCHMARK(BM_SignHead)->Unit(benchmark::kMicrosecond);

// `melee verify` and the SDK check each signed head.
void BM_VerifyHead(benchmark::State& state) {
  const auto secrets = ServerSecrets::Ephemeral();
  const std::string message = HeadMessage("m0123456789abcdef0123", 42, Hash{7});
  const std::string signature = secrets->Sign(message);
  for (auto _ : state) {
    benchmark::DoNotOptimize(VerifySignature(secrets->public_key(), message, signature));
  }
}
BENCHMARK(BM_VerifyHead)->Unit(benchmark::kMicrosecond);

// Seal scheme 2, per sealed declaration: a 32-byte nonce from the CSPRNG and the commitment over
// it and a typical sealed Declaration (~40 bytes).
void BM_SealCommitment(benchmark::State& state) {
  const std::string sealed(40, 'd');
  for (auto _ : state) {
    benchmark::DoNotOptimize(SealCommitment(RandomBytes(kSealNonceBytes), sealed));
  }
}
BENCHMARK(BM_SealCommitment);

// The salt every redactable stored event carries: 32 bytes from the CSPRNG.
void BM_EventSalt(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(RandomBytes(kEventSaltBytes));
}
BENCHMARK(BM_EventSalt);

}  // namespace
}  // namespace melee::persistence
