// The fuzz targets in the normal suite: every seed of tests/fuzz/corpus/<target>/ and every
// reproducer of tests/fuzz/regressions/<target>/ goes once through the target's function
// (targets.h), built with the normal compiler. A crash or a broken invariant aborts the test; the
// seeds must still reach past the parsers, so that a target cannot rot into one that only
// refuses.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/fuzz/targets.h"

namespace melee::fuzz {
namespace {

namespace fs = std::filesystem;

// The files of tests/fuzz/<kind>/<target>/, sorted (none when the folder does not exist).
std::vector<fs::path> FilesOf(const std::string& kind, const std::string& target) {
  const fs::path dir = fs::path(MELEE_SOURCE_DIR) / "tests/fuzz" / kind / target;
  std::vector<fs::path> files;
  if (!fs::is_directory(dir)) return files;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string Read(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream bytes;
  bytes << file.rdbuf();
  return bytes.str();
}

// Runs every seed of `target` and returns what they reached together.
Reached ReplayCorpus(const std::string& target, Reached (*run)(std::string_view)) {
  const std::vector<fs::path> seeds = FilesOf("corpus", target);
  EXPECT_GE(seeds.size(), 3u) << "tests/fuzz/corpus/" << target << " holds the seeds";
  Reached total;
  for (const fs::path& seed : seeds) {
    SCOPED_TRACE(seed.string());
    const Reached reached = run(Read(seed));
    EXPECT_GT(reached.parsed, 0u) << "a seed that does not even parse";
    total.parsed += reached.parsed;
    total.accepted += reached.accepted;
  }
  return total;
}

// Every reproducer of a crash the fuzzers found (docs/fuzzing.md lists them), through its target:
// each runs to its end now.
TEST(FuzzRegressions, EveryReproducerRunsClean) {
  size_t reproducers = 0;
  for (const auto& [target, run] :
       std::vector<std::pair<std::string, Reached (*)(std::string_view)>>{
           {"frame", FuzzFrame},
           {"ruleset", FuzzRuleset},
           {"match_file", FuzzMatchFile},
           {"http", FuzzHttp}}) {
    for (const fs::path& reproducer : FilesOf("regressions", target)) {
      SCOPED_TRACE(reproducer.string());
      run(Read(reproducer));
      ++reproducers;
    }
  }
  EXPECT_GE(reproducers, 1u) << "tests/fuzz/regressions/<target>/ holds the reproducers";
}

TEST(FuzzCorpusReplay, FramesReachMatchesThatPlay) {
  const Reached reached = ReplayCorpus("frame", FuzzFrame);
  // Three matches set up, confirmed and sealed: far more than the hellos.
  EXPECT_GE(reached.accepted, 20u);
}

TEST(FuzzCorpusReplay, RulesetCommandsAreDecidedAndApplied) {
  const Reached reached = ReplayCorpus("ruleset", FuzzRuleset);
  EXPECT_GE(reached.accepted, 9u);
}

TEST(FuzzCorpusReplay, ExportedMatchFilesVerify) {
  const Reached reached = ReplayCorpus("match_file", FuzzMatchFile);
  EXPECT_GE(reached.accepted, 3u) << "the director's files of three matches verify";
}

TEST(FuzzCorpusReplay, HttpRequestsReachTheRoutes) {
  const Reached reached = ReplayCorpus("http", FuzzHttp);
  EXPECT_GE(reached.accepted, 5u);
}

}  // namespace
}  // namespace melee::fuzz
