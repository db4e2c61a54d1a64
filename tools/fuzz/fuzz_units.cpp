// Fuzzes the unit parsers (`45GB/s`, `1us`, `16GiB`, `197TFLOP/s`, `1.5GHz`): a value that parses reads back
// exactly from its exact_number text, and its human form (4 significant digits) reads back within rounding.
#include <cmath>
#include <string>

#include "models/common/error.hpp"
#include "models/common/units.hpp"
#include "tools/fuzz/fuzz_support.hpp"

using namespace podsim;

namespace {

template <typename Parse, typename Format>
void round_trip(std::string_view text, Parse parse, Format format) {
  double value = 0;
  try {
    value = parse(text);
  } catch (const Error&) {
    return;
  }
  fuzz::require(std::isfinite(value), "parsed to a value that is not finite", text);
  const std::string exact = exact_number(value);
  try {
    fuzz::require(parse(exact) == value, "exact_number changed the value", text, exact);
  } catch (const Error&) {
    fuzz::require(false, "exact_number text does not parse", text, exact);
  }
  if (!(value > 0)) return;
  const std::string human = format(value);
  double again = 0;
  try {
    again = parse(human);
  } catch (const Error&) {
    fuzz::require(false, "human form does not parse", text, human);
  }
  fuzz::require(std::fabs(again - value) <= 1e-3 * value, "human form changed the value", text, human);
}

}  // namespace

PODSIM_FUZZ_ENTRY {
  const std::string_view text = fuzz::as_text(data, size);
  round_trip(text, parse_bandwidth, format_bandwidth);
  round_trip(text, parse_duration, format_seconds);
  round_trip(text, parse_rate, format_rate);
  round_trip(text, parse_frequency, format_frequency);
  try {
    const std::uint64_t bytes = parse_bytes(text);
    const std::string printed = std::to_string(bytes);
    fuzz::require(parse_bytes(printed) == bytes, "bytes changed", text, printed);
    (void)format_bytes(static_cast<double>(bytes));
  } catch (const Error&) {
  }
  return 0;
}
