// `podsim serve --trace FILE`: a serving run in the Chrome trace event format (Perfetto). Process 1 has one track per
// replica, its iterations as complete events at the times the simulation published; process 2 has the requests as
// async spans from arrival to the last token, the first token an async instant inside; a disaggregated run's process 3
// has one track per decode replica with the KV transfers into it. Long runs keep the earliest kServingTraceSteps steps
// and kServingTraceRequests requests (and as many transfers) and say so in the trace.
#include <algorithm>
#include <string>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "sim/report/serving_report.hpp"
#include "sim/report/trace_events.hpp"

namespace podsim {
namespace {

using ServingTraceJson = nlohmann::json;
using report::kTraceMicro;
using report::trace_metadata;

constexpr std::size_t kServingTraceSteps = 200'000;  // as many as `podsim run --trace` keeps by default
constexpr std::size_t kServingTraceRequests = 100'000;
constexpr int kServingReplicasPid = 1;
constexpr int kServingRequestsPid = 2;
constexpr int kServingTransfersPid = 3;

std::string serving_cut_note(const char* what, std::size_t kept, std::size_t total) {
  return fmt::format("trace truncated: kept the first {} of {} {}", kept, total, what);
}

}  // namespace

void write_serving_trace(const ServingReport& report, std::ostream& out) {
  const ServingRunResult& run = report.run;
  out << "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [";
  report::TraceWriter writer(out);

  // The replicas: one thread each, named and ordered by replica.
  writer.event(trace_metadata("process_name", kServingReplicasPid, -1, {{"name", "replicas"}}));
  writer.event(trace_metadata("process_sort_index", kServingReplicasPid, -1, {{"sort_index", 0}}));
  for (std::size_t r = 0; r < run.replicas.size(); ++r) {
    const auto tid = static_cast<std::int64_t>(r);
    const std::string pool = serving_pool_of(run, r);
    writer.event(trace_metadata(
        "thread_name", kServingReplicasPid, tid,
        {{"name", pool.empty() ? fmt::format("replica {}", r) : fmt::format("replica {} ({})", r, pool)}}));
    writer.event(trace_metadata("thread_sort_index", kServingReplicasPid, tid, {{"sort_index", r}}));
  }
  // Steps end in order over all replicas, so the first ones kept are the earliest.
  const std::size_t steps = std::min(run.steps.size(), kServingTraceSteps);
  for (std::size_t i = 0; i < steps; ++i) {
    const ServingStepSample& s = run.steps[i];
    writer.event({{"name", s.prefill_tokens > 0 ? "prefill + decode" : "decode"},
                  {"cat", "step"},
                  {"ph", "X"},
                  {"pid", kServingReplicasPid},
                  {"tid", s.replica},
                  {"ts", (s.end_s - s.step_s) * kTraceMicro},
                  {"dur", s.step_s * kTraceMicro},
                  {"args",
                   {{"batch_seqs", s.batch_seqs},
                    {"batch_tokens", s.batch_tokens},
                    {"prefill_tokens", s.prefill_tokens},
                    {"kv_used_blocks", s.kv_used_blocks},
                    {"waiting", s.waiting},
                    {"running", s.running}}}});
  }
  if (steps < run.steps.size())
    writer.event(trace_metadata("process_labels", kServingReplicasPid, -1,
                                {{"labels", serving_cut_note("steps", steps, run.steps.size())}}));

  // The requests, by id (the order they arrived): an async span each, with its first token marked.
  writer.event(trace_metadata("process_name", kServingRequestsPid, -1, {{"name", "requests"}}));
  writer.event(trace_metadata("process_sort_index", kServingRequestsPid, -1, {{"sort_index", 1}}));
  const std::size_t requests = std::min(run.completed.size(), kServingTraceRequests);
  for (std::size_t i = 0; i < requests; ++i) {
    const RequestRecord& r = run.completed[i];
    const ServingTraceJson base = {{"cat", "request"},
                                   {"id", std::to_string(r.id)},  // a string, as Chrome writes ids
                                   {"pid", kServingRequestsPid},
                                   {"tid", 0},
                                   {"name", fmt::format("request {}", r.id)}};
    ServingTraceJson begin = base, first = base, end = base;
    begin["ph"] = "b";
    begin["ts"] = r.arrival_s * kTraceMicro;
    begin["args"] = {{"prompt_tokens", r.prompt_tokens}, {"output_tokens", r.output_tokens}};
    first["ph"] = "n";
    first["name"] = "first token";
    first["ts"] = r.first_token_s * kTraceMicro;
    end["ph"] = "e";
    end["ts"] = r.last_token_s * kTraceMicro;
    writer.event(begin);
    writer.event(first);
    writer.event(end);
  }
  if (requests < run.completed.size())
    writer.event(trace_metadata("process_labels", kServingRequestsPid, -1,
                                {{"labels", serving_cut_note("requests", requests, run.completed.size())}}));

  // The KV transfers (disaggregated), on their decode replica's track: from the prefill step's end to the last byte.
  const std::size_t transfers = std::min(run.transfers.size(), kServingTraceRequests);
  if (!run.transfers.empty()) {
    writer.event(trace_metadata("process_name", kServingTransfersPid, -1, {{"name", "kv transfers"}}));
    writer.event(trace_metadata("process_sort_index", kServingTransfersPid, -1, {{"sort_index", 2}}));
    for (std::size_t r = static_cast<std::size_t>(run.prefill_replicas); r < run.replicas.size(); ++r)
      writer.event(trace_metadata("thread_name", kServingTransfersPid, static_cast<std::int64_t>(r),
                                  {{"name", fmt::format("into replica {} (decode)", r)}}));
  }
  for (std::size_t i = 0; i < transfers; ++i) {
    const KvTransferSample& t = run.transfers[i];
    const ServingTraceJson base = {{"cat", "kv"},
                                   {"id", "kv" + std::to_string(t.id)},
                                   {"pid", kServingTransfersPid},
                                   {"tid", t.to},
                                   {"name", fmt::format("kv of request {}", t.id)}};
    ServingTraceJson begin = base, end = base;
    begin["ph"] = "b";
    begin["ts"] = t.start_s * kTraceMicro;
    begin["args"] = {{"from_replica", t.from}, {"to_replica", t.to}, {"bytes", t.bytes}};
    end["ph"] = "e";
    end["ts"] = t.end_s * kTraceMicro;
    writer.event(begin);
    writer.event(end);
  }
  if (transfers < run.transfers.size())
    writer.event(trace_metadata("process_labels", kServingTransfersPid, -1,
                                {{"labels", serving_cut_note("transfers", transfers, run.transfers.size())}}));

  const ServingTraceJson other = {{"schema", "podsim/1"},
                                  {"scenario", report.scenario},
                                  {"steps_total", run.steps.size()},
                                  {"steps_written", steps},
                                  {"requests_total", run.completed.size()},
                                  {"requests_written", requests},
                                  {"truncated", steps < run.steps.size() || requests < run.completed.size()}};
  out << "\n], \"otherData\": " << other.dump(-1, ' ', false, ServingTraceJson::error_handler_t::replace) << "}\n";
}

}  // namespace podsim
