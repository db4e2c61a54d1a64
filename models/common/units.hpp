// The one place podsim parses human units ("45GB/s", "1us", "16GiB", "197TFLOP/s", "1.5GHz") into SI and
// formats SI values back for people. Plain numbers are SI already; decimal prefixes are powers of 1000
// (GB = 1e9), binary prefixes powers of 1024 (GiB = 2^30); a lower-case "b" means bits (Gb/s, Gbps).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace podsim {

// Bytes per second from "4.5e10", "45GB/s", "45 GBps", "800GiB/s", "100Gbps", "1.6Tbit/s".
// Throws VerifyError `bandwidth: <rule>, got: <text>`.
double parse_bandwidth(std::string_view text);

// Seconds from "1e-6", "1us", "1 µs", "560ns", "2.5ms", "1s", "3ps".
// Throws VerifyError `duration: <rule>, got: <text>`.
double parse_duration(std::string_view text);

// Bytes from "1048576", "16GiB", "16GB", "64 MiB", "1.5KiB". The result must be a whole number of bytes
// that fits in 64 bits. Throws VerifyError `bytes: <rule>, got: <text>`.
std::uint64_t parse_bytes(std::string_view text);

// FLOP/s (or integer OP/s) from "1.97e14", "197TFLOP/s", "197 TFLOPS", "394TOPS", "2.3PFLOP/s".
// Throws VerifyError `rate: <rule>, got: <text>`.
double parse_rate(std::string_view text);

// Hertz from "1.5e9", "1.5GHz", "940MHz". Throws VerifyError `frequency: <rule>, got: <text>`.
double parse_frequency(std::string_view text);

// Human forms with at most 4 significant digits and trailing zeros dropped.
// format_bytes(1048576) == "1 MiB", format_bytes(1000) == "1000 B" (binary prefixes from 1 KiB up).
std::string format_bytes(double bytes);
// format_seconds(5.6e-4) == "560 us", format_seconds(3.084e-7) == "308.4 ns", format_seconds(0) == "0 s".
std::string format_seconds(double seconds);
// format_bandwidth(4.5e10) == "45 GB/s" (decimal prefixes).
std::string format_bandwidth(double bytes_per_second);
// format_rate(1.97e14) == "197 TFLOP/s" (decimal prefixes).
std::string format_rate(double flops_per_second);
// format_frequency(1.5e9) == "1.5 GHz".
std::string format_frequency(double hertz);
// A plain number with at most 4 significant digits: format_number(240.24) == "240.2", 1e20 == "1e+20".
std::string format_number(double value);
// The shortest text that reads back as exactly `value` (4.5e+10, 0, -1): for error messages.
std::string exact_number(double value);

}  // namespace podsim
