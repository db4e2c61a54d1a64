// Shardy's mesh checks (MeshAxisAttr::verify, MeshAttr::verify) in the order SHARDY.md §2 lists them.
#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "models/common/error.hpp"
#include "models/sharding/axis_ref.hpp"
#include "models/sharding/sharding_verify.hpp"

namespace podsim {

namespace {

__extension__ typedef unsigned __int128 Uint128;  // exact digit products for huge meshes

std::string join_ids(const std::vector<std::int64_t>& ids) {
  std::string text;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(ids[i]);
  }
  return text;
}

// Product of the axis sizes as decimal text, exact even when it does not fit in int64.
std::string product_text(const Mesh& mesh, std::optional<std::int64_t>& product) {
  std::vector<std::uint32_t> digits{1};  // little-endian base 10^9, for exact huge products
  std::int64_t exact = 1;
  bool fits = true;
  for (const auto& axis : mesh.axes) {
    fits = fits && !__builtin_mul_overflow(exact, axis.size, &exact);
    std::uint64_t carry = 0;
    for (auto& digit : digits) {
      const Uint128 value = static_cast<Uint128>(digit) * static_cast<std::uint64_t>(axis.size) + carry;
      digit = static_cast<std::uint32_t>(value % 1000000000u);
      carry = static_cast<std::uint64_t>(value / 1000000000u);
    }
    while (carry > 0) {
      digits.push_back(static_cast<std::uint32_t>(carry % 1000000000u));
      carry /= 1000000000u;
    }
  }
  product = fits ? std::optional<std::int64_t>(exact) : std::nullopt;
  std::string text = std::to_string(digits.back());
  for (std::size_t i = digits.size() - 1; i-- > 0;) {
    const std::string part = std::to_string(digits[i]);
    text += std::string(9 - part.size(), '0') + part;
  }
  return text;
}

}  // namespace

void verify_mesh(const Mesh& mesh) {
  for (const auto& axis : mesh.axes)
    if (axis.size < 1) throw VerifyError("axis size must be at least 1, got: " + std::to_string(axis.size));
  for (const std::int64_t id : mesh.device_ids)
    if (id < 0) throw VerifyError("device id must be non-negative, got: " + std::to_string(id));
  if (mesh.axes.empty()) {
    if (mesh.device_ids.size() > 1) throw VerifyError("axes is empty and device_ids has more than one element");
    return;  // the empty mesh or a maximal mesh
  }
  for (std::size_t i = 0; i < mesh.axes.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (mesh.axes[j].name == mesh.axes[i].name)
        throw VerifyError("duplicate axis name: " + quote_string(mesh.axes[i].name));
  if (mesh.device_ids.empty()) {
    // podsim's rule beyond Shardy's: the devices of a mesh are counted in 64 bits (`X=9999100,YX=2999999999999`
    // is refused here rather than when something first counts them).
    (void)mesh.total_size();
    return;
  }

  std::optional<std::int64_t> product;
  const std::string product_str = product_text(mesh, product);
  const auto count = static_cast<std::int64_t>(mesh.device_ids.size());
  if (!product || *product != count)
    throw VerifyError("total product of axis sizes must match total number of device ids, got: " + product_str +
                      " != " + std::to_string(count));

  std::vector<std::int64_t> sorted = mesh.device_ids;
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::int64_t> iota(sorted.size());
  std::iota(iota.begin(), iota.end(), 0);
  if (sorted != iota) throw VerifyError("sorted device ids must be iota(product(axes)), got: " + join_ids(sorted));
  if (mesh.device_ids == iota)
    throw VerifyError(
        "if the ordered device ids are the same as iota(product(axes)), no need to specify them for simplicity");
}

}  // namespace podsim
