#include "proto/codec/json.h"

#include <gtest/gtest.h>

#include "melee/v1/common.pb.h"

namespace melee::proto {
namespace {

TEST(JsonTest, CompactOmitsDefaultsAndUsesProtoFieldNames) {
  melee::v1::Error error;
  error.set_command_id("c1");
  EXPECT_EQ(ToJson(error), R"({"command_id":"c1"})");
}

TEST(JsonTest, ReportPrintsEveryField) {
  melee::v1::Error error;
  error.set_command_id("c1");
  const std::string json = ToJson(error, JsonStyle::kReport);
  EXPECT_NE(json.find(R"("rule_ref":"")"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("code":"ERROR_CODE_UNSPECIFIED")"), std::string::npos) << json;
}

TEST(JsonTest, PrettyIsIndented) {
  melee::v1::Error error;
  error.set_message("m");
  EXPECT_NE(ToJson(error, JsonStyle::kPretty).find("\n \"message\": \"m\""), std::string::npos);
}

}  // namespace
}  // namespace melee::proto
