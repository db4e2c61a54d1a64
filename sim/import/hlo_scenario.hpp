// From a compiled, partitioned HLO module (hlo_module.hpp) to scenario JSON (docs/scenario-format.md) that
// `podsim check` and `podsim run` accept: the module's devices laid on a slice (device id = chip id, row-major),
// every collective on the mesh axes its replica groups form, every dot and convolution as a matmul with the
// module's per-device shapes, every fusion as its bytes in and out, in the ENTRY computation's dependency order, with
// calls read in place and while loops of known trip count unrolled (docs/import.md, "Partitioned HLO").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/import/hlo_module.hpp"
#include "sim/import/scenario_writer.hpp"

namespace podsim::import {

// A construct the import approximates: the instruction, its line, and how.
struct HloImportNote {
  std::string opcode;
  std::string name;
  int line = 0;
  std::string how;
};

// The scenario and what it approximated.
struct HloImport {
  ScenarioJson scenario;
  std::vector<HloImportNote> notes;  // in module order
};

// The module's device count: num_partitions x replica_count from its header; when that is 1 (the header names no
// count, as XLA's test modules leave it to the runner), one more than the largest device id the collectives' replica
// groups and source-target pairs name (in any computation: a loop body's collectives run too).
std::int64_t hlo_device_count(const HloModule& module);

// The slice dims, in the groups' order, whose lines (one dim) or planes (several) of a slice of shape `slice`
// (device id = chip id, numbered row-major) are exactly the groups, each group listing its chips row-major over
// those dims in that order; nullopt when no dims do. Empty `groups` means one group of all devices. Dims of size 1
// are never part of the answer.
std::optional<std::vector<int>> slice_dims_of_groups(const std::vector<std::vector<std::int64_t>>& groups,
                                                     const std::vector<std::int64_t>& slice);

// The default slice: the first shape, with fewer dims first (padded with 1s to the pod's rank) and each dim no
// longer than the pod's (`pod_shape` empty: rank up to 3, no bound), holding the module's device count, on which
// every collective's replica groups are lines or planes (slice_dims_of_groups). Throws InputError located
// `FILE:LINE:COL` at the replica_groups of a collective that no such slice can run, naming the groups; at `where`
// when each runs on some slice but no slice runs them all (give --slice).
std::vector<std::int64_t> hlo_default_slice(const HloModule& module, const std::vector<std::int64_t>& pod_shape,
                                            const std::string& file, const std::string& where);

// The scenario: `name` from the file's stem, the description naming `file` and the approximations' count, `source`
// (format `hlo-partitioned`, the notes as its approximations: `op` "opcode %name", or "HloModule NAME" at line 0), the
// preset `hardware` (with a `chip.peak_flops` override for each compute dtype missing from `peak_flops`, set to its
// bf16 figure and listed as a note), the slice with one mesh axis per dim (X, Y, Z), the ENTRY parameters and the
// stand-ins as tensors, and the program. Throws InputError located `FILE:LINE:COL` for an instruction it refuses
// (docs/import.md lists them): an unsupported opcode or element type, a while without known_trip_count, a module
// of more than 100,000 instructions unrolled, replica groups that are not lines or planes
// of the slice (naming the groups), device ids outside the slice, shapes that do not agree with a collective's,
// dot's or convolution's attributes; InputError at `--slice` when the slice does not hold the module's device
// count; at `--hardware` when a compute dtype has no figure and the preset has no bf16 one.
HloImport scenario_from_hlo(const HloModule& module, const std::string& file, const std::string& hardware,
                            const std::vector<std::int64_t>& slice, const std::map<std::string, double>& peak_flops);

}  // namespace podsim::import
