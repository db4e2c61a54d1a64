// The scenario writer of scenario_writer.hpp.
#include "sim/import/scenario_writer.hpp"

#include <filesystem>

namespace podsim::import {
namespace {

using Json = nlohmann::ordered_json;

Json hardware_json(const ScenarioFrame& frame) {
  if (frame.assumed_peaks.empty()) return frame.hardware;
  Json overrides = Json::object();
  for (const auto& peak : frame.assumed_peaks)
    overrides["chip"]["peak_flops"][peak.dtype] = {
        {"value", peak.flops},
        {"source", "podsim import"},
        {"note", "assumed equal to the preset's bf16 peak: the preset has no " + peak.dtype + " figure"}};
  return {{"preset", frame.hardware}, {"overrides", overrides}};
}

Json tensor_json(const ImportedTensor& t) {
  Json tensor = {{"shape", t.shape}, {"dtype", t.dtype}};
  if (!t.sharding.empty()) tensor["sharding"] = t.sharding;
  if (!t.view_of.empty()) tensor["view_of"] = t.view_of;
  if (t.transient) tensor["transient"] = true;
  return tensor;
}

Json elementwise_json(const ImportedOp& op, const std::string& out, ImportFormat format) {
  if (format == ImportFormat::hlo_partitioned)
    return {{"op", "elementwise"},
            {"name", op.name},
            {"tensor", op.lhs},
            {"flops_per_element", op.flops_per_element},
            {"out", out}};
  Json j = {{"op", "elementwise"}, {"name", op.name}, {"tensor", op.lhs}, {"out", out}};
  if (op.flops_per_element == static_cast<double>(static_cast<long long>(op.flops_per_element)))
    j["flops_per_element"] = static_cast<long long>(op.flops_per_element);
  else
    j["flops_per_element"] = op.flops_per_element;
  return j;
}

Json op_json(const ImportedOp& op, ImportFormat format) {
  const std::string out = op.out.empty() ? op.name : op.out;
  Json j;
  switch (op.kind) {
    case ImportedOpKind::matmul:
      j = {{"op", "matmul"}, {"name", op.name}, {"lhs", op.lhs}, {"rhs", op.rhs}, {"einsum", op.einsum}, {"out", out}};
      if (!op.sharding.empty()) j["out_sharding"] = op.sharding;
      break;
    case ImportedOpKind::elementwise:
      j = elementwise_json(op, out, format);
      break;
    case ImportedOpKind::reshard:
      j = {{"op", "reshard"}, {"name", op.name}, {"tensor", op.lhs}, {"to", op.sharding}, {"out", out}};
      break;
    case ImportedOpKind::load:
      j = {{"op", "load"}, {"name", op.name}, {"tensor", op.lhs}};
      break;
    case ImportedOpKind::all_gather:
      j = {{"op", "all_gather"}, {"name", op.name}, {"tensor", op.lhs}, {"axes", op.axes}, {"out", out}};
      break;
    case ImportedOpKind::all_reduce:
      j = {{"op", "all_reduce"}, {"name", op.name}, {"tensor", op.lhs}, {"axes", op.axes}, {"out", out}};
      break;
    case ImportedOpKind::reduce_scatter:
      j = {{"op", "reduce_scatter"}, {"name", op.name}, {"tensor", op.lhs},
           {"axes", op.axes},        {"dim", op.dim},   {"out", out}};
      break;
    case ImportedOpKind::all_to_all:
      j = {{"op", "all_to_all"}, {"name", op.name},     {"tensor", op.lhs}, {"axes", op.axes},
           {"from_dim", op.dim}, {"to_dim", op.to_dim}, {"out", out}};
      break;
    case ImportedOpKind::send:
      j = {{"op", "send"}, {"name", op.name}, {"from", op.from_chip}, {"to", op.to_chip}, {"bytes", op.bytes}};
      break;
  }
  if (!op.after.empty()) j["after"] = op.after;
  return j;
}

}  // namespace

Json scenario_json(const ImportedProgram& program, const ScenarioFrame& frame) {
  Json doc;
  const std::string name = std::filesystem::path(frame.file).stem().string();
  doc["name"] = name.empty() ? "imported" : name;
  doc["description"] = frame.description;
  Json approximations = Json::array();
  for (const auto& a : frame.approximations)
    approximations.push_back({{"op", a.op}, {"line", a.line}, {"how", a.how}});
  doc["source"] = {{"file", frame.file},
                   {"format", frame.format == ImportFormat::hlo_partitioned ? "hlo-partitioned" : "stablehlo-shardy"},
                   {"approximations", approximations}};
  doc["hardware"] = hardware_json(frame);
  doc["slice"] = {{"shape", frame.slice}, {"wraparound", "auto"}};
  Json axes = Json::array();
  for (std::size_t i = 0; i < program.axes.size(); ++i)
    axes.push_back({{"name", program.axes[i].first}, {"size", program.axes[i].second}, {"dims", frame.axis_dims[i]}});
  doc["mesh"] = {{"name", program.mesh_name}, {"axes", axes}};
  if (!program.device_ids.empty()) doc["mesh"]["device_ids"] = program.device_ids;
  // Tensors and ops are collected in plain vectors and made JSON once: adding to an ordered_json with
  // JSON_DIAGNOSTICS resets the parent of every element it holds, which made a large module's import quadratic.
  Json::object_t tensors;
  for (const auto& t : program.tensors)
    tensors.emplace_back(t.name, tensor_json(t));  // the readers' names are unique
  doc["tensors"] = Json(std::move(tensors));
  Json::array_t ops;
  for (const auto& op : program.ops)
    ops.push_back(op_json(op, frame.format));
  doc["program"] = Json(std::move(ops));
  return doc;
}

std::string approximations_text(const Json& scenario, const std::string& file) {
  const auto& list = scenario.at("source").at("approximations");
  if (list.empty()) return "";
  std::string out =
      std::to_string(list.size()) + " approximation" + (list.size() == 1 ? "" : "s") + " (docs/import.md):\n";
  for (const auto& a : list) {
    const int line = a.at("line").get<int>();
    out += "  " + file + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " +
           a.at("op").get<std::string>() + ": " + a.at("how").get<std::string>() + "\n";
  }
  return out;
}

}  // namespace podsim::import
