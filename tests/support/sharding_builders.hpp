// Small builders for tests that construct shardings by hand (on a mesh named "m"), and the error text of a call.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/common/error.hpp"
#include "models/sharding/sharding.hpp"

namespace podsim::test {

inline AxisRef axis(const std::string& name) {
  return {name, std::nullopt};
}

inline AxisRef sub_axis(const std::string& name, std::int64_t pre_size, std::int64_t size) {
  return {name, SubAxis{pre_size, size}};
}

// A closed dim sharded by `axes`, major to minor.
inline DimSharding dim(std::vector<AxisRef> axes) {
  DimSharding d;
  d.axes = std::move(axes);
  return d;
}

// A sharding on mesh "m" with these dims.
inline TensorSharding sharding(std::vector<DimSharding> dims) {
  TensorSharding s;
  s.mesh_name = "m";
  s.dims = std::move(dims);
  return s;
}

// The message of the VerifyError `f` throws, or "no error".
template <typename F>
std::string verify_error(F&& f) {
  try {
    f();
  } catch (const VerifyError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace podsim::test
