// Unit parsing and formatting: a number, optional spaces, then a unit from a small table per quantity.
// Integers written without a fraction or exponent are parsed exactly, so "18446744073709551615" bytes
// survives; everything else goes through a double.
#include "models/common/units.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "models/common/error.hpp"

namespace podsim {
namespace {

struct UnitFactor {
  std::string name;
  double factor;
};

struct Prefix {
  const char* name;
  double factor;
};

constexpr std::array<Prefix, 7> kDecimal = {
    {{"", 1.0}, {"k", 1e3}, {"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15}}};
constexpr std::array<Prefix, 5> kBinary = {
    {{"Ki", 1024.0}, {"Mi", 1048576.0}, {"Gi", 1073741824.0}, {"Ti", 1099511627776.0}, {"Pi", 1125899906842624.0}}};

std::vector<UnitFactor> bandwidth_units() {
  std::vector<UnitFactor> units;
  for (const auto& p : kDecimal)
    for (const char* form : {"B/s", "Bps"})
      units.push_back({std::string(p.name) + form, p.factor});
  for (const auto& p : kBinary)
    for (const char* form : {"B/s", "Bps"})
      units.push_back({std::string(p.name) + form, p.factor});
  for (const auto& p : kDecimal)
    for (const char* form : {"bit/s", "b/s", "bps"})
      units.push_back({std::string(p.name) + form, p.factor / 8.0});
  return units;
}

std::vector<UnitFactor> byte_units() {
  std::vector<UnitFactor> units;
  for (const auto& p : kDecimal)
    units.push_back({std::string(p.name) + "B", p.factor});
  for (const auto& p : kBinary)
    units.push_back({std::string(p.name) + "B", p.factor});
  return units;
}

std::vector<UnitFactor> duration_units() {
  return {{"s", 1.0}, {"ms", 1e-3}, {"us", 1e-6}, {"\xC2\xB5s", 1e-6}, {"ns", 1e-9}, {"ps", 1e-12}};
}

std::vector<UnitFactor> rate_units() {
  std::vector<UnitFactor> units;
  constexpr std::array<Prefix, 7> prefixes = {
      {{"", 1.0}, {"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15}, {"E", 1e18}}};
  for (const auto& p : prefixes)
    for (const char* form : {"FLOP/s", "FLOPS", "OP/s", "OPS"})
      units.push_back({std::string(p.name) + form, p.factor});
  return units;
}

std::vector<UnitFactor> frequency_units() {
  return {{"Hz", 1.0}, {"kHz", 1e3}, {"MHz", 1e6}, {"GHz", 1e9}, {"THz", 1e12}};
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
    text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t'))
    text.remove_suffix(1);
  return text;
}

[[noreturn]] void fail(std::string_view quantity, const std::string& rule, std::string_view text) {
  throw VerifyError(std::string(quantity) + ": " + rule + ", got: " + std::string(text));
}

// A number and the unit after it.
struct Split {
  double value = 0;
  std::string_view number;
  std::string_view unit;
};

Split split_number(std::string_view quantity, std::string_view text) {
  const std::string_view body = trim(text);
  if (body.empty()) fail(quantity, "expected a number with an optional unit", text);
  Split split;
  const char* begin = body.data();
  const char* end = body.data() + body.size();
  const auto [ptr, ec] = std::from_chars(begin, end, split.value, std::chars_format::general);
  if (ec != std::errc() || ptr == begin) fail(quantity, "expected a number with an optional unit", text);
  if (!std::isfinite(split.value)) fail(quantity, "must be a finite number", text);
  split.number = std::string_view(begin, static_cast<std::size_t>(ptr - begin));
  split.unit = trim(std::string_view(ptr, static_cast<std::size_t>(end - ptr)));
  return split;
}

std::string unit_list(const std::vector<UnitFactor>& units, std::size_t shown) {
  std::string list;
  for (std::size_t i = 0; i < units.size() && i < shown; ++i)
    list += (i == 0 ? "" : ", ") + units[i].name;
  return list;
}

const UnitFactor& find_unit(std::string_view quantity, const std::vector<UnitFactor>& units, std::string_view unit,
                            std::string_view text, const std::string& expected) {
  for (const auto& u : units)
    if (u.name == unit) return u;
  fail(quantity, "unknown unit \"" + std::string(unit) + "\" (expected " + expected + ")", text);
}

double parse_quantity(std::string_view quantity, std::string_view text, const std::vector<UnitFactor>& units,
                      const std::string& expected) {
  const Split split = split_number(quantity, text);
  if (split.unit.empty()) return split.value;
  return split.value * find_unit(quantity, units, split.unit, text, expected).factor;
}

// Rounds to 4 significant digits and prints without trailing zeros ("%.4g").
std::string four_digits(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.4g", value);
  return buffer;
}

// strtod, not stod: stod throws std::out_of_range for a subnormal such as 4.174e-312 (found by tools/fuzz).
double round4(double value) {
  return std::strtod(four_digits(value).c_str(), nullptr);
}

// Picks the largest unit not above |value| (the first unit if none is), so the number reads 1..999.9.
std::string format_scaled(double value, const std::vector<UnitFactor>& ascending) {
  if (value == 0) return "0 " + ascending.front().name;
  if (!std::isfinite(value)) return four_digits(value) + " " + ascending.front().name;
  std::size_t pick = 0;
  for (std::size_t i = 0; i < ascending.size(); ++i)
    if (std::fabs(value) >= ascending[i].factor) pick = i;
  // 999.97 rounds to 1000: move to the next unit when there is one.
  if (pick + 1 < ascending.size() &&
      std::fabs(round4(value / ascending[pick].factor)) * ascending[pick].factor >= ascending[pick + 1].factor)
    ++pick;
  return four_digits(value / ascending[pick].factor) + " " + ascending[pick].name;
}

}  // namespace

double parse_bandwidth(std::string_view text) {
  static const auto units = bandwidth_units();
  return parse_quantity("bandwidth", text, units,
                        "B/s, kB/s, MB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s, TiB/s, Gbps, Gbit/s");
}

double parse_duration(std::string_view text) {
  static const auto units = duration_units();
  return parse_quantity("duration", text, units, "s, ms, us, ns, ps");
}

std::uint64_t parse_bytes(std::string_view text) {
  static const auto units = byte_units();
  const Split split = split_number("bytes", text);
  const double factor =
      split.unit.empty() ? 1.0
                         : find_unit("bytes", units, split.unit, text, "B, kB, MB, GB, TB, KiB, MiB, GiB, TiB").factor;
  if (split.value < 0) fail("bytes", "must not be negative", text);
  // Digits only: exact integer arithmetic (every factor is an integer).
  if (split.number.find_first_not_of("0123456789") == std::string_view::npos) {
    std::uint64_t count = 0;
    const auto [ptr, ec] = std::from_chars(split.number.data(), split.number.data() + split.number.size(), count);
    if (ec != std::errc() || ptr != split.number.data() + split.number.size())
      fail("bytes", "does not fit in 64 bits", text);
    const auto f = static_cast<std::uint64_t>(factor);
    if (f != 0 && count > std::numeric_limits<std::uint64_t>::max() / f) fail("bytes", "does not fit in 64 bits", text);
    return count * f;
  }
  const double bytes = split.value * factor;
  if (bytes >= 18446744073709551616.0) fail("bytes", "does not fit in 64 bits", text);
  if (bytes != std::floor(bytes)) fail("bytes", "must be a whole number of bytes", text);
  return static_cast<std::uint64_t>(bytes);
}

double parse_rate(std::string_view text) {
  static const auto units = rate_units();
  return parse_quantity("rate", text, units, "FLOP/s, GFLOP/s, TFLOP/s, PFLOP/s, FLOPS, TFLOPS, OP/s, TOPS");
}

double parse_frequency(std::string_view text) {
  static const auto units = frequency_units();
  return parse_quantity("frequency", text, units, unit_list(units, units.size()));
}

std::string format_bytes(double bytes) {
  static const std::vector<UnitFactor> units = {{"B", 1.0},
                                                {"KiB", 1024.0},
                                                {"MiB", 1048576.0},
                                                {"GiB", 1073741824.0},
                                                {"TiB", 1099511627776.0},
                                                {"PiB", 1125899906842624.0}};
  return format_scaled(bytes, units);
}

std::string format_seconds(double seconds) {
  static const std::vector<UnitFactor> units = {{"ps", 1e-12}, {"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1.0}};
  if (seconds == 0) return "0 s";
  return format_scaled(seconds, units);
}

std::string format_bandwidth(double bytes_per_second) {
  static const std::vector<UnitFactor> units = {{"B/s", 1.0},  {"kB/s", 1e3},  {"MB/s", 1e6},
                                                {"GB/s", 1e9}, {"TB/s", 1e12}, {"PB/s", 1e15}};
  return format_scaled(bytes_per_second, units);
}

std::string format_rate(double flops_per_second) {
  static const std::vector<UnitFactor> units = {{"FLOP/s", 1.0},  {"kFLOP/s", 1e3},  {"MFLOP/s", 1e6},
                                                {"GFLOP/s", 1e9}, {"TFLOP/s", 1e12}, {"PFLOP/s", 1e15},
                                                {"EFLOP/s", 1e18}};
  return format_scaled(flops_per_second, units);
}

std::string format_frequency(double hertz) {
  static const auto units = frequency_units();
  return format_scaled(hertz, units);
}

std::string format_number(double value) {
  if (std::fabs(value) >= 1000 && std::fabs(value) < 1e15) {
    char buffer[64];
    std::snprintf(buffer, sizeof(buffer), "%.0f", value);
    return buffer;
  }
  return four_digits(value);
}

std::string exact_number(double value) {
  std::array<char, 32> buffer{};
  const auto end = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value).ptr;
  return std::string(buffer.data(), end);
}

}  // namespace podsim
