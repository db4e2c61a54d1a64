// evaluate_validation (sim/report/validation.hpp) refuses a row id that no file has by its argument, never by a flag's
// name: the CLI maps `only` to --rows (ValidateCli.FlagErrorsAreLocated).
#include "sim/report/validation.hpp"

#include <gtest/gtest.h>

#include <string>

namespace podsim {
namespace {

TEST(Validation, AnIdNoFileHasIsRefusedInOnly) {
  const std::string good = std::string(PODSIM_SOURCE_DIR) + "/tests/validate/data/good";
  try {
    evaluate_validation({good}, {"nobody"});
    FAIL() << "no error";
  } catch (const ValidationError& e) {
    EXPECT_EQ(e.field(), ValidationField::only);
    EXPECT_EQ(e.message(), "no row has this id, got: nobody");
  }
}

}  // namespace
}  // namespace podsim
