// The scenario verifier: every rule of the scenario format (docs/scenario-format.md) checked on the typed spec,
// whether the JSON loader or code wrote it, with the same messages. Sections are checked in the format's order
// (slice, mesh, tensors, program, plans, expect) and the first broken rule wins. Every error is an InputError
// `SOURCE: /pointer: RULE, got: VALUE` located by the spec's own pointers (`/tensors/x/sharding`, `/program/2`),
// with `column N: ` for sharding, einsum and mesh text; SOURCE is spec.source_file (omitted when empty).
#pragma once

#include "sim/scenario/scenario_spec.hpp"

namespace podsim {

// Checks `spec`. Its derived fields are ignored: they are computed afresh from the written ones. Throws
// InputError at the first broken rule.
void verify(const ScenarioSpec& spec);

// Checks `spec` as verify does and returns it with its derived fields filled (pointers, parsed shardings and
// einsums, the mesh and its axis dims, the resolved wraparound, op inputs, outputs and their shapes, metric
// scopes): the spec lowering and simulation read. Throws InputError.
ScenarioSpec verified(ScenarioSpec spec);

}  // namespace podsim
