// The input limits of JSON texts (check_json_text, read_json_file) and JSON values echoed by shown(), on hand-built
// texts: every limit's exact message, and the texts the scan must not mistake for nesting or numbers.
#include "sim/scenario/json_text.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "models/common/error.hpp"

namespace podsim {
namespace {

std::string check_error(const std::string& text) {
  try {
    check_json_text(text, "f.json");
  } catch (const InputError& e) {
    EXPECT_EQ(e.stage(), InputError::Stage::parse);
    return e.what();
  }
  return "(no error)";
}

TEST(JsonText, NestingUpToTheLimitPasses) {
  EXPECT_EQ(check_error(std::string(64, '[') + std::string(64, ']')), "(no error)");
}

TEST(JsonText, NestingBeyondTheLimitIsLocatedAtTheOpeningBracket) {
  EXPECT_EQ(check_error(std::string(200000, '[')), "f.json: line 1, column 65: nesting deeper than 64 levels");
  const std::string objects = "{\n \"a\": " + std::string(63, '[') + "{}";
  EXPECT_EQ(check_error(objects), "f.json: line 2, column 70: nesting deeper than 64 levels");
}

TEST(JsonText, BracketsAndDigitsInStringsAreNotCounted) {
  EXPECT_EQ(check_error("{\"a\": \"" + std::string(100, '[') + "\\\"[1e400\"}"), "(no error)");
}

TEST(JsonText, NumberOutOfRangeIsLocated) {
  EXPECT_EQ(check_error("{\"a\": [1,\n -1e400]}"), "f.json: line 2, column 2: number out of range, got: -1e400");
  EXPECT_EQ(check_error("[1" + std::string(400, '0') + "]"),
            "f.json: line 1, column 2: number out of range, got: 1" + std::string(79, '0') + "...");
  EXPECT_EQ(check_error("[1e-400, 1.5e308, -0, 123456789012345678901234567890]"), "(no error)");
}

TEST(JsonText, InputLargerThanTheLimit) {
  EXPECT_EQ(check_error(std::string(kJsonMaxBytes, ' ')), "(no error)");
  EXPECT_EQ(check_error(std::string(kJsonMaxBytes + 1, ' ')), "f.json: input larger than 64 MiB, got: 67108865 bytes");
}

TEST(JsonText, AFileLargerThanTheLimitIsRefusedBeforeItIsRead) {
  const auto path = std::filesystem::temp_directory_path() / ("podsim_big_" + std::to_string(getpid()) + ".json");
  std::ofstream(path) << "{}";
  ASSERT_EQ(read_json_file(path.string()), std::optional<std::string>("{}"));
  std::filesystem::resize_file(path, kJsonMaxBytes + 1);  // sparse: nothing is written
  std::string error = "(no error)";
  try {
    read_json_file(path.string());
  } catch (const InputError& e) {
    error = e.what();
  }
  std::filesystem::remove(path);
  EXPECT_EQ(error, path.string() + ": input larger than 64 MiB, got: 67108865 bytes");
  EXPECT_EQ(read_json_file(path.string()), std::nullopt);  // gone: cannot be opened
}

TEST(JsonText, ShownCutsLongValuesAndKeepsShortOnes) {
  EXPECT_EQ(shown(nlohmann::json::parse(R"({"a": [1, "x"]})")), R"({"a":[1,"x"]})");
  EXPECT_EQ(shown(nlohmann::json(std::string(100, 'a'))), "\"" + std::string(79, 'a') + "...");
}

}  // namespace
}  // namespace podsim
