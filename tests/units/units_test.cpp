// Unit parsing and formatting (models/common/units): every accepted spelling against values worked by hand,
// and every rule's exact error message.
#include "models/common/units.hpp"

#include <gtest/gtest.h>

#include <string>

#include "models/common/error.hpp"

namespace podsim {
namespace {

std::string error_of(void (*f)(const char*), const char* text) {
  try {
    f(text);
  } catch (const VerifyError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ParseBandwidth, PlainNumbersAreBytesPerSecond) {
  EXPECT_DOUBLE_EQ(parse_bandwidth("4.5e10"), 4.5e10);
  EXPECT_DOUBLE_EQ(parse_bandwidth("  820000000000 "), 8.2e11);
}

TEST(ParseBandwidth, DecimalBinaryAndBitUnits) {
  EXPECT_DOUBLE_EQ(parse_bandwidth("45GB/s"), 4.5e10);
  EXPECT_DOUBLE_EQ(parse_bandwidth("45 GB/s"), 4.5e10);
  EXPECT_DOUBLE_EQ(parse_bandwidth("819GBps"), 8.19e11);
  EXPECT_DOUBLE_EQ(parse_bandwidth("3.35TB/s"), 3.35e12);
  EXPECT_DOUBLE_EQ(parse_bandwidth("800GiB/s"), 800.0 * 1073741824.0);  // 858,993,459,200
  EXPECT_DOUBLE_EQ(parse_bandwidth("100Gbps"), 1.25e10);                // 100e9 bits / 8
  EXPECT_DOUBLE_EQ(parse_bandwidth("1.6Tbit/s"), 2e11);
  EXPECT_DOUBLE_EQ(parse_bandwidth("25 Gb/s"), 3.125e9);
}

TEST(ParseBandwidth, UnknownUnitNamesUnitAndText) {
  EXPECT_EQ(error_of([](const char* t) { parse_bandwidth(t); }, "45GX/s"),
            "bandwidth: unknown unit \"GX/s\" (expected B/s, kB/s, MB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s, TiB/s, "
            "Gbps, Gbit/s), got: 45GX/s");
  EXPECT_EQ(error_of([](const char* t) { parse_bandwidth(t); }, "fast"),
            "bandwidth: expected a number with an optional unit, got: fast");
  EXPECT_EQ(error_of([](const char* t) { parse_bandwidth(t); }, ""),
            "bandwidth: expected a number with an optional unit, got: ");
  EXPECT_EQ(error_of([](const char* t) { parse_bandwidth(t); }, "inf GB/s"),
            "bandwidth: must be a finite number, got: inf GB/s");
}

TEST(ParseDuration, SecondsAndPrefixes) {
  EXPECT_DOUBLE_EQ(parse_duration("1e-6"), 1e-6);
  EXPECT_DOUBLE_EQ(parse_duration("1us"), 1e-6);
  EXPECT_DOUBLE_EQ(parse_duration("1 \xC2\xB5s"), 1e-6);
  EXPECT_DOUBLE_EQ(parse_duration("560ns"), 5.6e-7);
  EXPECT_DOUBLE_EQ(parse_duration("2.5ms"), 2.5e-3);
  EXPECT_DOUBLE_EQ(parse_duration("3s"), 3.0);
  EXPECT_DOUBLE_EQ(parse_duration("470ps"), 4.7e-10);
  EXPECT_EQ(error_of([](const char* t) { parse_duration(t); }, "1 hour"),
            "duration: unknown unit \"hour\" (expected s, ms, us, ns, ps), got: 1 hour");
}

TEST(ParseBytes, DecimalAndBinaryPrefixes) {
  EXPECT_EQ(parse_bytes("1048576"), 1048576u);
  EXPECT_EQ(parse_bytes("16GiB"), 17179869184u);  // 16 x 2^30
  EXPECT_EQ(parse_bytes("16GB"), 16000000000u);
  EXPECT_EQ(parse_bytes("64 MiB"), 67108864u);
  EXPECT_EQ(parse_bytes("1.5KiB"), 1536u);
  EXPECT_EQ(parse_bytes("1e9"), 1000000000u);
  EXPECT_EQ(parse_bytes("18446744073709551615"), 18446744073709551615u);  // exact, not through a double
}

TEST(ParseBytes, Errors) {
  EXPECT_EQ(error_of([](const char* t) { parse_bytes(t); }, "0.5B"),
            "bytes: must be a whole number of bytes, got: 0.5B");
  EXPECT_EQ(error_of([](const char* t) { parse_bytes(t); }, "-1"), "bytes: must not be negative, got: -1");
  EXPECT_EQ(error_of([](const char* t) { parse_bytes(t); }, "18446744073709551616"),
            "bytes: does not fit in 64 bits, got: 18446744073709551616");
  EXPECT_EQ(error_of([](const char* t) { parse_bytes(t); }, "16777216TiB"),
            "bytes: does not fit in 64 bits, got: 16777216TiB");
  EXPECT_EQ(error_of([](const char* t) { parse_bytes(t); }, "16 gigs"),
            "bytes: unknown unit \"gigs\" (expected B, kB, MB, GB, TB, KiB, MiB, GiB, TiB), got: 16 gigs");
}

TEST(ParseRate, FlopsAndOps) {
  EXPECT_DOUBLE_EQ(parse_rate("1.97e14"), 1.97e14);
  EXPECT_DOUBLE_EQ(parse_rate("197TFLOP/s"), 1.97e14);
  EXPECT_DOUBLE_EQ(parse_rate("197 TFLOPS"), 1.97e14);
  EXPECT_DOUBLE_EQ(parse_rate("394TOPS"), 3.94e14);
  EXPECT_DOUBLE_EQ(parse_rate("2.3PFLOP/s"), 2.3e15);
  EXPECT_EQ(
      error_of([](const char* t) { parse_rate(t); }, "197 TF"),
      "rate: unknown unit \"TF\" (expected FLOP/s, GFLOP/s, TFLOP/s, PFLOP/s, FLOPS, TFLOPS, OP/s, TOPS), got: 197 TF");
}

TEST(ParseFrequency, Hertz) {
  EXPECT_DOUBLE_EQ(parse_frequency("1.5GHz"), 1.5e9);
  EXPECT_DOUBLE_EQ(parse_frequency("940MHz"), 9.4e8);
  EXPECT_DOUBLE_EQ(parse_frequency("1.05e9"), 1.05e9);
}

TEST(Format, HumanUnits) {
  EXPECT_EQ(format_bytes(1048576), "1 MiB");
  EXPECT_EQ(format_bytes(1536), "1.5 KiB");
  EXPECT_EQ(format_bytes(1000), "1000 B");
  EXPECT_EQ(format_bytes(17179869184.0), "16 GiB");
  EXPECT_EQ(format_seconds(5.6e-4), "560 us");
  EXPECT_EQ(format_seconds(1048576 / 3.4e12), "308.4 ns");  // the seed's HBM load time
  EXPECT_EQ(format_seconds(0), "0 s");
  EXPECT_EQ(format_seconds(0.99999999), "1 s");  // rounds up into the next unit, not "1000 ms"
  EXPECT_EQ(format_bandwidth(4.5e10), "45 GB/s");
  EXPECT_EQ(format_bandwidth(3.125e9), "3.125 GB/s");
  EXPECT_EQ(format_rate(1.97e14), "197 TFLOP/s");
  EXPECT_EQ(format_frequency(1.5e9), "1.5 GHz");
  EXPECT_EQ(format_number(240.2439), "240.2");
  EXPECT_EQ(format_number(2550), "2550");
}

// A subnormal value formats instead of throwing std::out_of_range (fuzz_units, input "417444417191032e-327").
TEST(Format, SubnormalValues) {
  EXPECT_EQ(format_bandwidth(4.174e-312), "4.174e-312 B/s");
  EXPECT_EQ(format_seconds(4.174e-312), "4.174e-300 ps");
  EXPECT_DOUBLE_EQ(parse_bandwidth(format_bandwidth(parse_bandwidth("417444417191032e-327"))), 4.174e-313);
}

TEST(Format, ParsesBack) {
  EXPECT_DOUBLE_EQ(parse_bandwidth(format_bandwidth(4.5e10)), 4.5e10);
  EXPECT_DOUBLE_EQ(parse_duration(format_seconds(5.6e-4)), 5.6e-4);
  EXPECT_EQ(parse_bytes(format_bytes(1048576)), 1048576u);
}

}  // namespace
}  // namespace podsim
