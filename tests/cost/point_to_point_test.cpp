// The book's point-to-point time: bytes over all ports plus hops x alpha (the terms add).
#include "models/cost/point_to_point.hpp"

#include <gtest/gtest.h>

#include "models/common/error.hpp"
#include "tests/support/test_checks.hpp"

namespace podsim {
namespace {

// 8,388,608 B over 2 ports of 4.5e10 B/s: 8,388,608 / 9e10 = 93.20675556 us, plus 3 hops x 1 us:
// 96.20675556 us in total (not the max: the terms add).
TEST(BookPointToPoint, TermsAdd) {
  const CostBreakdown cost = book_point_to_point(8388608, 3, 2, 4.5e10, 1e-6);
  test::expect_close(cost.bandwidth_s, 93.20675556e-6);
  test::expect_close(cost.latency_s, 3e-6);
  test::expect_close(cost.time_s, 96.20675556e-6);
  EXPECT_EQ(cost.hops, 3);
  EXPECT_EQ(cost.bound, Bound::bandwidth);
  EXPECT_EQ(cost.formula, "bytes / (ports * W_uni) + hops * alpha");
}

// 4,500 B over one port: 4,500 / 4.5e10 = 0.1 us, plus 2 us of latency: 2.1 us, latency-bound.
TEST(BookPointToPoint, SmallMessageIsLatencyBound) {
  const CostBreakdown cost = book_point_to_point(4500, 2, 1, 4.5e10, 1e-6);
  test::expect_close(cost.time_s, 2.1e-6);
  EXPECT_EQ(cost.bound, Bound::latency);
}

TEST(BookPointToPoint, RejectsBadInputs) {
  try {
    book_point_to_point(1, 1, 0, 4.5e10, 1e-6);
    FAIL() << "expected VerifyError";
  } catch (const VerifyError& e) {
    EXPECT_STREQ(e.what(), "book point-to-point: ports must be >= 1, got: 0");
  }
  EXPECT_THROW(book_point_to_point(1, -1, 1, 4.5e10, 1e-6), VerifyError);
  EXPECT_THROW(book_point_to_point(1, 1, 1, 0, 1e-6), VerifyError);
  EXPECT_THROW(book_point_to_point(1, 1, 1, 4.5e10, -1), VerifyError);
}

}  // namespace
}  // namespace podsim
