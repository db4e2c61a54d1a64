// Limits that protect the machine (docs/reliability.md): a run whose event graph or functional-mode values would
// take more memory than a machine like ours has is refused before anything is built, with the estimate.
#pragma once

#include <cstdint>
#include <string>

#include "models/sharding/mesh.hpp"
#include "sim/plan/planned_program.hpp"

namespace podsim {

// The most memory functional mode may hold: every tensor version's dense reference and every device's shard, as
// doubles (8 bytes a value).
inline constexpr std::uint64_t kMaxFunctionalBytes = std::uint64_t{8} << 30;

// Upper bound on the transfers the program's event graph holds: its collectives' (estimate_transfers) and one per
// point-to-point transfer.
std::uint64_t estimate_transfers(const PlannedProgram& program);

// The compute tasks the program's event graph holds: one per chip and compute step.
std::uint64_t count_compute_tasks(const PlannedProgram& program, std::uint64_t chips);

// Bytes functional mode holds for the program on `mesh`: per buffer, the global array plus a shard per device.
double estimate_functional_bytes(const PlannedProgram& program, const Mesh& mesh);

// Throws VerifyError, its message starting with `what`, when the event graph of `program` on `chips` chips would
// exceed kMaxTransfers: its transfers alone, or its transfers and compute tasks together.
void check_event_graph_size(const PlannedProgram& program, std::uint64_t chips, const std::string& what);

// Throws VerifyError when the program's event graph would exceed kMaxTransfers (check_event_graph_size), or, with
// `functional`, its values kMaxFunctionalBytes: `plan "fsdp": the event graph would hold about ... transfers (...)` and
// `plan "dp": functional mode (verify_values) would hold about 7.3 TiB of values (largest tensor "x", 1000000000000
// elements), above the limit of 8 GiB: run without verify_values`.
void check_run_size(const PlannedProgram& program, const Mesh& mesh, bool functional);

}  // namespace podsim
