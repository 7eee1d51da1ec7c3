#pragma once

// A fresh directory under $TMPDIR (or /tmp, or a given directory), removed with everything in it when destroyed.

#include <stdlib.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace melee::testing {

class TempDir {
 public:
  TempDir() : TempDir(std::getenv("TMPDIR") != nullptr ? std::getenv("TMPDIR") : "/tmp") {}
  // Makes the directory in `base` instead.
  explicit TempDir(const std::filesystem::path& base) {
    std::string pattern = (base / "melee-test-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) std::abort();
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace melee::testing
