#include "persistence/database.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>

#include "tests/testing/temp_dir.h"

namespace melee::persistence {
namespace {

TEST(DatabaseTest, InMemoryDatabaseOpens) {
  auto db = Database::Open(":memory:");
  ASSERT_TRUE(db.has_value()) << db.error().message;
  EXPECT_TRUE((*db)->Ping().has_value());
  EXPECT_EQ((*db)->JournalMode().value(), "memory");
  EXPECT_EQ((*db)->FormatVersion().value(), kFormatVersion);
}

TEST(DatabaseTest, DataDirectoryIsCreatedWithWalJournal) {
  melee::testing::TempDir dir;
  const auto data = dir.path() / "nested" / "data";
  {
    auto db = Database::OpenDataDirectory(data);
    ASSERT_TRUE(db.has_value()) << db.error().message;
    EXPECT_EQ((*db)->JournalMode().value(), "wal");
    EXPECT_EQ((*db)->path(), (data / kDatabaseFileName).string());
  }
  EXPECT_TRUE(std::filesystem::exists(data / kDatabaseFileName));
  auto again = Database::OpenDataDirectory(data);
  ASSERT_TRUE(again.has_value()) << again.error().message;
  EXPECT_EQ((*again)->FormatVersion().value(), kFormatVersion);
}

TEST(DatabaseTest, FileThatIsNotADatabaseIsRefused) {
  melee::testing::TempDir dir;
  const auto path = dir.path() / "melee.db";
  std::ofstream(path) << "this is a text file, long enough to look like a header.......";
  auto db = Database::Open(path.string());
  ASSERT_FALSE(db.has_value());
  EXPECT_NE(db.error().message.find("not a database"), std::string::npos) << db.error().message;
}

TEST(DatabaseTest, OtherApplicationsDatabaseIsRefused) {
  melee::testing::TempDir dir;
  const auto path = (dir.path() / "other.db").string();
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw,
                         "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);"
                         "INSERT INTO meta VALUES ('application', 'somethingelse');",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(raw);
  auto db = Database::Open(path);
  ASSERT_FALSE(db.has_value());
  EXPECT_NE(db.error().message.find("another application"), std::string::npos)
      << db.error().message;
}

TEST(DatabaseTest, NewerFormatVersionIsRefused) {
  melee::testing::TempDir dir;
  const auto path = (dir.path() / "melee.db").string();
  { ASSERT_TRUE(Database::Open(path).has_value()); }
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "UPDATE meta SET value = '99' WHERE key = 'format_version';", nullptr,
                         nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(raw);
  auto db = Database::Open(path);
  ASSERT_FALSE(db.has_value());
  EXPECT_NE(db.error().message.find("format version 99"), std::string::npos) << db.error().message;
}

TEST(DatabaseTest, DataDirectoryUnderAFileIsAClearError) {
  melee::testing::TempDir dir;
  std::ofstream(dir.path() / "plainfile") << "x";
  auto db = Database::OpenDataDirectory(dir.path() / "plainfile" / "data");
  ASSERT_FALSE(db.has_value());
  EXPECT_NE(db.error().message.find("cannot create data directory"), std::string::npos)
      << db.error().message;
}

}  // namespace
}  // namespace melee::persistence
