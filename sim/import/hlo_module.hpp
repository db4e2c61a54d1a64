// `podsim import`'s reader of compiled, partitioned HLO modules (docs/import.md, "Partitioned HLO"): the text JAX
// prints for `jax.jit(f).lower(...).compile().as_text()`, after XLA's SPMD partitioner, with per-device shapes and
// explicit collectives. The reader keeps every computation's instructions with their shapes, operands and the
// attributes podsim reads (replica groups, source-target pairs, dot and convolution dims, fusion callees); what a
// scenario makes of them is hlo_scenario.hpp's business.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace podsim::import {

// An HLO shape: an array `f32[128,512]{1,0}` (layout dropped) or a tuple `(f32[4], s32[])`.
struct HloShape {
  bool tuple = false;
  std::string element;             // array: the HLO element type (`f32`, `bf16`, `s32`, `pred`, `token`, ...)
  std::vector<std::int64_t> dims;  // array: the dims; empty for a scalar
  std::vector<HloShape> elements;  // tuple: the element shapes
};

// One instruction `[ROOT] %name = SHAPE opcode(operands), attr=value, ...`.
struct HloInstruction {
  std::string name;  // without the leading `%`
  bool root = false;
  HloShape shape;
  std::string opcode;                 // e.g. "all-gather", "fusion", "dot"
  std::vector<std::string> operands;  // operand instruction names (without `%`); empty for parameter/constant
  std::string arguments;              // the raw text between the parentheses (parameter number, constant literal)
  std::map<std::string, std::string> attributes;          // key -> value text, as written
  std::map<std::string, std::size_t> attribute_column;    // key -> 1-based column of the key
  int line = 0;                                           // 1-based line of the module text
  std::size_t column = 0;                                 // 1-based column of the opcode
  std::vector<std::vector<std::int64_t>> replica_groups;  // parsed `replica_groups` (empty: attribute absent or {})
  std::vector<std::pair<std::int64_t, std::int64_t>> source_target_pairs;  // parsed `source_target_pairs`
};

// One computation `[ENTRY] %name (params) -> shape { ... }`.
struct HloComputation {
  std::string name;  // without `%`
  bool entry = false;
  int line = 0;
  std::vector<HloInstruction> instructions;  // in text order
};

// The module.
struct HloModule {
  std::string name;
  std::int64_t num_partitions = 1;  // `num_partitions=` of the header
  std::int64_t replica_count = 1;   // `replica_count=` of the header
  std::vector<HloComputation> computations;
  int entry = -1;  // index of the ENTRY computation
};

// Whether two shapes are the same: element type and dims, or tuples of the same shapes (layouts are not read).
bool same_shape(const HloShape& a, const HloShape& b);

// True when the text's first line that is neither blank nor a `//` comment starts with `HloModule`.
bool looks_like_hlo_module(std::string_view text);

// Reads `text` (`file` names it in errors). Throws InputError located `FILE:LINE:COL` (1-based) for a line that is
// not a module header, computation header, instruction or `}`; an unknown operand, or one whose shape written
// before it differs from its instruction's; a malformed shape, operand list or attribute that
// podsim reads (`replica_groups`, `source_target_pairs`); dynamic dims (`f32[<=8]`), an array of more than 2^50
// elements; a header count outside [1, 10^6]; a name defined twice in a
// computation; nesting deeper than 32 brackets; a module without ENTRY computation or with two.
HloModule parse_hlo_module(std::string_view text, const std::string& file);

// The device lists of a `replica_groups` value: `{{0,1},{2,3}}`, `{}` (one group of all devices, returned as an
// empty list), or the iota form `[G,S]<=[D0,D1,...]` with an optional transpose `T(p0,p1,...)`: the devices
// 0..N-1 laid out with dims D, transposed by p, read row-major and cut into G groups of S. Throws ParseError
// (column 1-based in `text`) when malformed, or when the iota form's sizes do not multiply to the same count.
std::vector<std::vector<std::int64_t>> parse_replica_groups(std::string_view text);

}  // namespace podsim::import
