// results.csv from the JSON Lines records (docs/sweeps.md, "results.csv"): one row per record, columns point, hash,
// model, error, one per swept pointer, then `PLAN.FIELD` per plan and field, in order of first appearance.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace podsim {

// Writes the CSV (RFC 4180 quoting; null as an empty cell) of `lines`, each a sweep record.
void write_sweep_csv(const std::vector<std::string>& lines, std::ostream& out);

}  // namespace podsim
