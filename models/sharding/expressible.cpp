// The limits of the book notation and PartitionSpecs.
#include "models/sharding/expressible.hpp"

#include "models/common/error.hpp"
#include "models/sharding/shardy_print.hpp"

namespace podsim {

void cannot_express(std::string_view notation, const std::string& what, const TensorSharding& s) {
  throw VerifyError(std::string(notation) + " cannot express " + what + ", got: " + print_shardy_sharding(s));
}

void require_plain_sharding(const TensorSharding& s, std::string_view notation) {
  for (const auto& dim : s.dims) {
    for (const auto& ref : dim.axes)
      if (ref.is_sub_axis()) cannot_express(notation, "sub-axes", s);
    if (!dim.is_closed) cannot_express(notation, "open dimensions", s);
    if (dim.priority) cannot_express(notation, "priorities", s);
  }
  if (!s.replicated.empty()) cannot_express(notation, "explicitly replicated axes", s);
  for (const auto& ref : s.unreduced)
    if (ref.is_sub_axis()) cannot_express(notation, "sub-axes", s);
  if (!s.unreduced.empty() && s.unreduced_reduction != Reduction::sum)
    cannot_express(
        notation,
        std::string("unreduced axes with reduction ") + (s.unreduced_reduction == Reduction::max ? "max" : "min"), s);
}

}  // namespace podsim
