// `podsim collective`: one collective over mesh axes of a slice, book model and simulation side by side.
#include <algorithm>
#include <iostream>

#include "models/common/units.hpp"
#include "models/sharding/mesh_spec.hpp"
#include "sim/collectives/algorithm_table.hpp"
#include "sim/query/collective_query.hpp"
#include "sim/report/collective_report.hpp"
#include "sim/report/error_report.hpp"
#include "sim/report/output_file.hpp"
#include "sim/scenario/hardware_json.hpp"
#include "tools/podsim/command.hpp"
#include "tools/podsim/failure_flags.hpp"
#include "tools/podsim/flags.hpp"

namespace podsim::cli {
namespace {

struct CollectiveFlags {
  std::string hardware = "tpu-v5e";
  std::string slice;
  std::string wrap = "auto";
  bool twist = false;
  FailureFlags failures;
  std::optional<std::string> mesh;
  std::string op;
  std::string axes;
  std::optional<std::string> shape;
  std::string dtype = "bf16";
  std::optional<std::string> sharding;
  std::optional<std::string> array_bytes;
  std::optional<std::string> link_bandwidth;
  std::optional<std::string> hop_latency;
  std::int32_t slices = 1;
  std::optional<std::string> dcn_bandwidth;
  std::optional<std::string> dcn_latency;
  std::string model = "both";
  std::string algorithm = "auto";
  std::string multi_axis = "concurrent";
  std::string routing = "dimension_order";
  std::string links;
  bool json = false;
  bool uncalibrated = false;
};

// `X,Y` -> {"X", "Y"} (spaces ignored).
std::vector<std::string> split_axes(const std::string& text) {
  std::vector<std::string> axes;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t comma = std::min(text.find(',', pos), text.size());
    std::string axis = text.substr(pos, comma - pos);
    axis.erase(std::remove(axis.begin(), axis.end(), ' '), axis.end());
    if (axis.empty()) throw VerifyError("expected a comma-separated list of mesh axes such as X,Y, got: " + text);
    axes.push_back(axis);
    pos = comma + 1;
  }
  return axes;
}

// The collective's size from the flags: --array-bytes, or a tensor given by --shape and --sharding.
std::variant<std::uint64_t, CollectiveQuery::Tensor> size_of(const CollectiveFlags& flags) {
  if (flags.sharding && flags.array_bytes)
    throw InputError("--array-bytes", "give either --array-bytes or a tensor (--shape, --sharding), got: both");
  if (flags.array_bytes) return located("--array-bytes", [&] { return parse_bytes(*flags.array_bytes); });
  if (!flags.sharding)
    throw InputError("--array-bytes", "the collective's size is required: --array-bytes V or --shape and --sharding");
  if (!flags.shape) throw InputError("--shape", "a shape is required with --sharding, got: none");
  return CollectiveQuery::Tensor{located("--shape", [&] { return parse_shape(*flags.shape); }), *flags.sharding};
}

// The flags' text as the typed query; each parse failure is located at its flag.
CollectiveQuery collective_query(const CollectiveFlags& flags) {
  CollectiveQuery query;
  query.hardware = cli::hardware_flag([&] { return load_hardware_preset(flags.hardware); });
  if (flags.uncalibrated) query.hardware.calibration.reset();
  if (flags.link_bandwidth)
    query.link_bandwidth_Bps = located("--link-bw", [&] { return parse_bandwidth(*flags.link_bandwidth); });
  if (flags.hop_latency)
    query.hop_latency_s = located("--hop-latency", [&] { return parse_duration(*flags.hop_latency); });
  query.slices = flags.slices;
  if (flags.dcn_bandwidth)
    query.dcn_bandwidth_Bps = located("--dcn-bw", [&] { return parse_bandwidth(*flags.dcn_bandwidth); });
  if (flags.dcn_latency)
    query.dcn_latency_s = located("--dcn-latency", [&] { return parse_duration(*flags.dcn_latency); });
  if (flags.slice.empty()) throw InputError("--slice", "a slice shape such as 8x4 is required, got: none");
  query.slice = located("--slice", [&] { return parse_shape(flags.slice); });
  query.wrap = located("--wrap", [&] { return parse_wrap_choice(flags.wrap, query.slice); });
  query.twist = flags.twist;
  const FailureRequest failures = failure_request(flags.failures);
  query.failed_links = failures.links;
  query.failed_chips = failures.chips;
  query.spare_cubes = failures.spare_cubes;
  if (flags.mesh) query.mesh = located("--mesh", [&] { return parse_mesh_spec(*flags.mesh).mesh; });
  query.op = located("--op", [&] { return parse_collective_kind(flags.op); });
  query.axes = located("--axes", [&] { return split_axes(flags.axes); });
  query.size = size_of(flags);
  query.dtype = located("--dtype", [&] { return parse_dtype(flags.dtype); });
  if (flags.model != "both") {
    query.model = kEvalModelNames.find(flags.model);
    if (!query.model) throw InputError("--model", "model must be des, book or both, got: " + flags.model);
  }
  query.algorithm = located("--algorithm", [&] { return parse_algorithm(flags.algorithm); });
  const auto multi_axis = kMultiAxisNames.find(flags.multi_axis);
  if (!multi_axis) throw InputError("--multi-axis", "must be sequential or concurrent, got: " + flags.multi_axis);
  query.multi_axis = *multi_axis;
  query.routing = located("--routing", [&] { return kRoutePolicyNames.parse(flags.routing); });
  return query;
}

std::string flag_of(CollectiveQuery::Field field) {
  using Field = CollectiveQuery::Field;
  switch (field) {
    case Field::hardware:
      return "--hardware";
    case Field::slice:
      return "--slice";
    case Field::wrap:
      return "--wrap";
    case Field::twist:
      return "--twist";
    case Field::failed_links:
      return failure_flag(FailureIssue::Field::failed_links);
    case Field::failed_chips:
      return failure_flag(FailureIssue::Field::failed_chips);
    case Field::spare_cubes:
      return failure_flag(FailureIssue::Field::spare_cubes);
    case Field::mesh:
      return "--mesh";
    case Field::op:
      return "--op";
    case Field::axes:
      return "--axes";
    case Field::array_bytes:
      return "--array-bytes";
    case Field::shape:
      return "--shape";
    case Field::sharding:
      return "--sharding";
    case Field::link_bandwidth:
      return "--link-bw";
    case Field::hop_latency:
      return "--hop-latency";
    case Field::algorithm:
      return "--algorithm";
    case Field::slices:
      return "--slices";
    case Field::dcn_bandwidth:
      return "--dcn-bw";
    case Field::dcn_latency:
      return "--dcn-latency";
  }
  return "--op";
}

CollectiveAnswer answer(const CollectiveFlags& flags) {
  const CollectiveQuery query = collective_query(flags);
  try {
    return answer_collective(query);
  } catch (const CollectiveError& error) {
    const bool preset_rule = error.field() == CollectiveQuery::Field::wrap && query.wrap.mode == WrapMode::automatic;
    throw at_flag(error, flag_of(error.field()),
                  preset_rule ? " (the preset's rule does not apply: choose --wrap none, all or dims)" : "");
  }
}

}  // namespace

void add_collective_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("collective", "Time one collective: book closed form and hop-by-hop simulation");
  auto flags = std::make_shared<CollectiveFlags>();
  cmd->add_option("--hardware", flags->hardware, "Hardware preset (podsim hardware lists them)")->capture_default_str();
  cmd->add_option("--slice", flags->slice, "Slice shape in chips, e.g. 8x4 or 4x4x4")->required();
  cmd->add_option("--wrap", flags->wrap, "Wraparound: auto (the preset's rule), none, all, or dims such as 0,1")
      ->capture_default_str();
  cmd->add_flag("--twist", flags->twist, "A twisted torus (k x k x 2k or k x 2k x 2k on a preset that twists)");
  add_failure_flags(cmd, flags->failures);
  cmd->add_option("--mesh", flags->mesh, "Logical mesh, e.g. X=8,Y=4 (default: one axis per slice dim, X Y Z)");
  cmd->add_option("--op", flags->op, "all-gather, reduce-scatter, all-reduce or all-to-all")->required();
  cmd->add_option("--axes", flags->axes, "Mesh axes the collective runs over, e.g. Y or X,Y")->required();
  cmd->add_option("--shape", flags->shape, "Tensor shape, with --sharding");
  cmd->add_option("--dtype", flags->dtype, "Element type")->capture_default_str();
  cmd->add_option("--sharding", flags->sharding, "The tensor's sharding before the collective, e.g. 'A[E_Y, F]'");
  cmd->add_option("--array-bytes", flags->array_bytes, "The gathered or reduced array V over the group (bytes)");
  cmd->add_option("--link-bw", flags->link_bandwidth, "Override the link bandwidth per direction, e.g. 45GB/s");
  cmd->add_option("--hop-latency", flags->hop_latency, "Override the per-hop latency, e.g. 1us");
  cmd->add_option(
         "--slices", flags->slices,
         "Slices joined by the DCN (docs/overlap-pipeline-dcn.md); the mesh then has an axis DCN over the slice index")
      ->capture_default_str();
  cmd->add_option("--dcn-bw", flags->dcn_bandwidth, "Override the DCN egress per chip, e.g. 6.25GB/s");
  cmd->add_option("--dcn-latency", flags->dcn_latency, "Override the DCN latency per transfer, e.g. 10us");
  cmd->add_option("--model", flags->model, "des, book or both")->capture_default_str();
  cmd->add_option("--algorithm", flags->algorithm, kAlgorithmNames.choices())->capture_default_str();
  cmd->add_option("--multi-axis", flags->multi_axis, "Several axes: sequential or concurrent")->capture_default_str();
  cmd->add_option("--routing", flags->routing,
                  "Transfers between chips that differ in several dims: dimension_order (one route) or split_minimal "
                  "(over link-disjoint minimal routes)")
      ->capture_default_str();
  cmd->add_option("--links", flags->links, "Write the per-link ledger (bytes, messages, busy time) to this CSV file");
  cmd->add_flag("--json", flags->json, "Print one JSON object (schema podsim/1)");
  cmd->add_flag("--uncalibrated", flags->uncalibrated,
                "Simulate with the preset's figures, without its calibration (docs/hardware-model.md)");
  cmd->callback([&action, flags] {
    action = [flags] {
      try {
        const CollectiveAnswer result = answer(*flags);
        if (!flags->links.empty()) {
          if (result.slices > 1)
            throw InputError("--links",
                             "the link ledger CSV lists one slice's ICI links: not with --slices > 1, got: " +
                                 std::to_string(result.slices) + " slices");
          report::OutputFile out("--links", flags->links);
          report::write_link_ledger_csv(result, out.stream());
          out.commit();
        }
        if (flags->json)
          std::cout << report::collective_answer_json(result).dump(2) << "\n";
        else
          std::cout << report::collective_answer_text(result);
        return 0;
      } catch (const InputError& error) {
        if (flags->json) std::cout << report::error_json(error).dump(2) << "\n";
        throw;
      }
    };
  });
}

}  // namespace podsim::cli
