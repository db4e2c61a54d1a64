// Scenario loader, serving (docs/serving.md, "Scenario"): a workload in mode "serve" with its traffic, the `serving`
// section (the server's scheduler, replicas, routing) and the `slo` section, read into spec.serve; a trace file's rows
// (CSV, with the Azure LLM inference trace's columns read as they are, or JSON Lines). The rules between the values
// are the verifiers' (verify_traffic, verify_scheduler_config, verify_slo), called by the scenario's verifier.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <string_view>

#include "models/common/units.hpp"
#include "sim/scenario/scenario_json_detail.hpp"
#include "sim/scenario/serving_trace_json.hpp"

namespace podsim::scenario_detail {
namespace {

// Every key of a serve workload; the routing and quantization keys as in the other modes.
const std::vector<std::string> kServeWorkloadKeys = {
    "mode",         "traffic",      "weight_dtype",    "kv_dtype",
    "quantization", "moe_dispatch", "capacity_factor", "expert_histogram"};
// Which arrival law takes which of the keys below.
const std::vector<std::string> kArrivalKeys = {"rate_per_s", "burstiness", "concurrency", "trace"};
// A trace file holds at most this many bytes (10 million rows of a few dozen bytes).
constexpr std::uintmax_t kTraceMaxBytes = std::uintmax_t{1} << 30;

TokenLaw read_token_law(const Ctx& ctx, const Json& j, const std::string& p) {
  require_object(ctx, j, p);
  if (j.size() != 1)
    ctx.fail(
        p, "must be one of {\"fixed\": N}, {\"uniform\": [A, B]}, {\"lognormal\": {\"mean\": M, \"sigma\": S}}, got: " +
               shown(j));
  require_known_keys_near(ctx, j, p, {"fixed", "uniform", "lognormal"});
  if (j.contains("fixed")) return FixedTokens{get_int(ctx, j.at("fixed"), p + "/fixed")};
  if (j.contains("uniform")) {
    const Json& range = j.at("uniform");
    require_array(ctx, range, p + "/uniform");
    if (range.size() != 2) ctx.fail(p + "/uniform", "must be [A, B], two token counts, got: " + shown(range));
    return UniformTokens{get_int(ctx, range[0], p + "/uniform/0"), get_int(ctx, range[1], p + "/uniform/1")};
  }
  const std::string lp = p + "/lognormal";
  const Json& law = j.at("lognormal");
  require_object(ctx, law, lp);
  require_known_keys_near(ctx, law, lp, {"mean", "sigma"});
  require_key(ctx, law, lp, "mean");
  require_key(ctx, law, lp, "sigma");
  return LognormalTokens{get_number(ctx, law.at("mean"), lp + "/mean"),
                         get_number(ctx, law.at("sigma"), lp + "/sigma")};
}

// The fields of one line of a CSV trace (no quoting: the traces podsim reads hold numbers and timestamps).
std::vector<std::string_view> csv_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t from = 0;
  while (true) {
    const std::size_t comma = line.find(',', from);
    std::string_view field = line.substr(from, comma == std::string_view::npos ? std::string_view::npos : comma - from);
    while (!field.empty() && (field.front() == ' ' || field.front() == '\t'))
      field.remove_prefix(1);
    while (!field.empty() && (field.back() == ' ' || field.back() == '\t' || field.back() == '\r'))
      field.remove_suffix(1);
    fields.push_back(field);
    if (comma == std::string_view::npos) return fields;
    from = comma + 1;
  }
}

// Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar (Howard Hinnant's days_from_civil).
std::int64_t trace_days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

// "YYYY-MM-DD HH:MM:SS[.fraction]" (the Azure trace's TIMESTAMP, no zone) in nanoseconds from 1970-01-01 (whole
// ticks, so that the gaps between rows come out exact), or nullopt. Years 1970 to 2200 (the nanoseconds of any two fit
// an int64 and so does their difference), at most 9 digits of fraction.
std::optional<std::int64_t> trace_timestamp_ns(std::string_view text) {
  const auto number = [&](std::size_t at, std::size_t digits, unsigned lo, unsigned hi) -> std::optional<unsigned> {
    if (text.size() < at + digits) return std::nullopt;
    unsigned value = 0;
    const auto [end, error] = std::from_chars(text.data() + at, text.data() + at + digits, value);
    if (error != std::errc() || end != text.data() + at + digits || value < lo || value > hi) return std::nullopt;
    return value;
  };
  if (text.size() < 19 || text[4] != '-' || text[7] != '-' || (text[10] != ' ' && text[10] != 'T') || text[13] != ':' ||
      text[16] != ':')
    return std::nullopt;
  const auto y = number(0, 4, 1970, 2200), mo = number(5, 2, 1, 12), d = number(8, 2, 1, 31);
  const auto h = number(11, 2, 0, 23), mi = number(14, 2, 0, 59), s = number(17, 2, 0, 60);
  if (!y || !mo || !d || !h || !mi || !s) return std::nullopt;
  std::int64_t fraction_ns = 0;
  if (text.size() > 19) {
    if (text[19] != '.' || text.size() == 20 || text.size() > 29) return std::nullopt;
    std::int64_t scale = 100'000'000;
    for (std::size_t i = 20; i < text.size(); ++i, scale /= 10) {
      if (text[i] < '0' || text[i] > '9') return std::nullopt;
      fraction_ns += scale * (text[i] - '0');
    }
  }
  const std::int64_t seconds = trace_days_from_civil(*y, *mo, *d) * 86400 + *h * 3600 + *mi * 60 + *s;
  return seconds * 1'000'000'000 + fraction_ns;
}

std::optional<double> trace_number(std::string_view text) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

// A token count of a trace row: an integer in [1, kMaxRequestTokens] (the traffic verifier's range, named here with
// the row's line).
std::int64_t trace_tokens(const Ctx& ctx, const std::string& p, const std::string& line, const std::string& column,
                          std::string_view text) {
  const std::optional<double> value = trace_number(text);
  if (!value || *value != std::floor(*value) || *value < 1 || *value > static_cast<double>(kMaxRequestTokens))
    ctx.fail(p, line + ": " + column + " must be a whole number of tokens in [1, " + std::to_string(kMaxRequestTokens) +
                    "], got: " + quote(std::string(text)));
  return static_cast<std::int64_t>(*value);
}

// Calls row(line, where) for every line of a trace that is not blank, `where` naming the file and the line.
template <typename Row>
void for_each_trace_line(std::string_view text, const std::string& name, Row&& row) {
  std::size_t at = 0, line_number = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(at, end - at);
    at = end + 1;
    ++line_number;
    if (line.find_first_not_of(" \t\r") != std::string_view::npos)
      row(line, name + " line " + std::to_string(line_number));
  }
}

// A CSV trace: a header naming the columns, then a row per request. Columns `arrival_s`, `prompt_tokens`,
// `output_tokens` (any order, others ignored), or the Azure trace's `TIMESTAMP`, `ContextTokens`, `GeneratedTokens`
// (arrival: seconds after the first row's timestamp).
std::vector<TraceRow> read_csv_trace(const Ctx& ctx, const std::string& p, const std::string& name,
                                     std::string_view text) {
  std::vector<TraceRow> rows;
  std::ptrdiff_t arrival = -1, prompt = -1, output = -1;
  bool azure = false;
  std::optional<std::int64_t> first_timestamp_ns;
  for_each_trace_line(text, name, [&](std::string_view line, const std::string& where) {
    const std::vector<std::string_view> fields = csv_fields(line);
    if (arrival < 0) {  // the header
      const auto column = [&](std::string_view wanted) -> std::ptrdiff_t {
        const auto found = std::find(fields.begin(), fields.end(), wanted);
        return found == fields.end() ? -1 : found - fields.begin();
      };
      arrival = column("arrival_s"), prompt = column("prompt_tokens"), output = column("output_tokens");
      if (arrival < 0 && prompt < 0 && output < 0) {
        arrival = column("TIMESTAMP"), prompt = column("ContextTokens"), output = column("GeneratedTokens");
        azure = true;
      }
      if (arrival < 0 || prompt < 0 || output < 0)
        ctx.fail(p, where +
                        ": the header must name the columns arrival_s, prompt_tokens and output_tokens (or the "
                        "Azure trace's TIMESTAMP, ContextTokens and GeneratedTokens), got: " +
                        quote(std::string(line.substr(0, 200))));
      return;
    }
    const auto need = static_cast<std::size_t>(std::max({arrival, prompt, output}));
    if (fields.size() <= need)
      ctx.fail(p, where + ": a row must have " + std::to_string(need + 1) +
                      " columns, got: " + std::to_string(fields.size()));
    if (rows.size() >= static_cast<std::size_t>(kMaxRequests))
      ctx.fail(p, where + ": a trace holds at most " + std::to_string(kMaxRequests) + " requests");
    TraceRow row;
    const std::string_view time = fields[static_cast<std::size_t>(arrival)];
    if (azure) {
      const std::optional<std::int64_t> ns = trace_timestamp_ns(time);
      if (!ns)
        ctx.fail(
            p, where +
                   ": TIMESTAMP must be YYYY-MM-DD HH:MM:SS[.fraction] (years 1970 to 2200, at most 9 digits), got: " +
                   quote(std::string(time)));
      if (!first_timestamp_ns) first_timestamp_ns = *ns;
      row.arrival_s = static_cast<double>(*ns - *first_timestamp_ns) / 1e9;
    } else {
      const std::optional<double> seconds = trace_number(time);
      if (!seconds) ctx.fail(p, where + ": arrival_s must be a number of seconds, got: " + quote(std::string(time)));
      row.arrival_s = *seconds;
    }
    row.prompt_tokens = trace_tokens(ctx, p, where, azure ? "ContextTokens" : "prompt_tokens",
                                     fields[static_cast<std::size_t>(prompt)]);
    row.output_tokens = trace_tokens(ctx, p, where, azure ? "GeneratedTokens" : "output_tokens",
                                     fields[static_cast<std::size_t>(output)]);
    rows.push_back(row);
  });
  if (arrival < 0) ctx.fail(p, name + ": a trace needs a header and at least one row, got: an empty file");
  return rows;
}

// A JSON Lines trace: one object per line, {"arrival_s", "prompt_tokens", "output_tokens"}.
std::vector<TraceRow> read_jsonl_trace(const Ctx& ctx, const std::string& p, const std::string& name,
                                       std::string_view text) {
  std::vector<TraceRow> rows;
  for_each_trace_line(text, name, [&](std::string_view line, const std::string& where) {
    if (rows.size() >= static_cast<std::size_t>(kMaxRequests))
      ctx.fail(p, where + ": a trace holds at most " + std::to_string(kMaxRequests) + " requests");
    Json row;
    try {
      check_json_text(line, where);
      row = Json::parse(line);
    } catch (const Json::exception& e) {
      ctx.fail(p, where + ": not a JSON object: " + std::string(e.what()));
    } catch (const InputError& e) {
      ctx.fail(p, e.what());
    }
    const Ctx in_row{ctx.file + ": " + p + ": " + where, ctx.folder};
    require_object(in_row, row, "");
    require_known_keys_near(in_row, row, "", {"arrival_s", "prompt_tokens", "output_tokens"});
    for (const char* key : {"arrival_s", "prompt_tokens", "output_tokens"})
      require_key(in_row, row, "", key);
    TraceRow out;
    out.arrival_s = get_number(in_row, row.at("arrival_s"), "/arrival_s");
    out.prompt_tokens = get_int(in_row, row.at("prompt_tokens"), "/prompt_tokens");
    out.output_tokens = get_int(in_row, row.at("output_tokens"), "/output_tokens");
    rows.push_back(out);
  });
  if (rows.empty()) ctx.fail(p, name + ": a trace needs at least one row, got: an empty file");
  return rows;
}

std::vector<TraceRow> read_trace(const Ctx& ctx, const std::string& p, const std::string& path) {
  const std::optional<std::string> text = read_input_file(path, kTraceMaxBytes);
  if (!text) ctx.fail(p, "cannot open the trace file, got: " + quote(path));
  const bool jsonl = path.size() >= 6 && (path.ends_with(".jsonl") || path.ends_with(".json"));
  return jsonl ? read_jsonl_trace(ctx, p, path, *text) : read_csv_trace(ctx, p, path, *text);
}

// workload.traffic: the arrival law and its keys, the bound, the lengths and the seed.
TrafficSpec read_traffic(const Ctx& ctx, const Json& j, const std::string& p, std::string& trace_file) {
  require_object(ctx, j, p);
  require_known_keys_near(ctx, j, p,
                          {"arrival", "rate_per_s", "burstiness", "concurrency", "trace", "duration_s", "requests",
                           "prompt_tokens", "output_tokens", "seed"});
  require_key(ctx, j, p, "arrival");
  const std::string law = get_string(ctx, j.at("arrival"), p + "/arrival");
  const std::vector<std::string> laws = {"poisson", "gamma", "constant", "closed", "trace"};
  if (std::find(laws.begin(), laws.end(), law) == laws.end())
    ctx.fail(p + "/arrival", "unknown arrival law, got: " + quote(law) + " (expected one of " + quote_list(laws) + ")");
  std::vector<std::string> own;
  if (law == "poisson" || law == "constant") own = {"rate_per_s"};
  if (law == "gamma") own = {"rate_per_s", "burstiness"};
  if (law == "closed") own = {"concurrency"};
  if (law == "trace") own = {"trace"};
  for (const std::string& key : kArrivalKeys) {
    const bool mine = std::find(own.begin(), own.end(), key) != own.end();
    if (j.contains(key) && !mine)
      ctx.fail(child(p, key), "does not apply to arrival " + quote(law) + " (it takes " +
                                  (own.empty() ? std::string("none") : quote_list(own)) + "), got: " + quote(key));
    if (!j.contains(key) && mine) require_key(ctx, j, p, key);
  }
  TrafficSpec traffic;
  if (law == "poisson") traffic.arrival = PoissonArrivals{get_number(ctx, j.at("rate_per_s"), p + "/rate_per_s")};
  if (law == "constant") traffic.arrival = ConstantArrivals{get_number(ctx, j.at("rate_per_s"), p + "/rate_per_s")};
  if (law == "gamma")
    traffic.arrival = GammaArrivals{get_number(ctx, j.at("rate_per_s"), p + "/rate_per_s"),
                                    get_number(ctx, j.at("burstiness"), p + "/burstiness")};
  if (law == "closed") traffic.arrival = ClosedLoopArrivals{get_int(ctx, j.at("concurrency"), p + "/concurrency")};
  if (law == "trace") {
    trace_file = ctx.beside(get_string(ctx, j.at("trace"), p + "/trace"));
    traffic.arrival = TraceArrivals{read_trace(ctx, p + "/trace", trace_file)};
  }
  if (j.contains("duration_s")) traffic.duration_s = get_number(ctx, j.at("duration_s"), p + "/duration_s");
  if (j.contains("requests")) traffic.requests = get_int(ctx, j.at("requests"), p + "/requests");
  if (j.contains("prompt_tokens"))
    traffic.prompt_tokens = read_token_law(ctx, j.at("prompt_tokens"), p + "/prompt_tokens");
  if (j.contains("output_tokens"))
    traffic.output_tokens = read_token_law(ctx, j.at("output_tokens"), p + "/output_tokens");
  if (j.contains("seed")) traffic.seed = static_cast<std::uint64_t>(get_int(ctx, j.at("seed"), p + "/seed", 0));
  return traffic;
}

// A pool of serving.disaggregated: its slice (shape, DCN overrides), mesh spec, parallelism, replicas, limits.
ServingPoolSpec read_serving_pool(const Ctx& ctx, const Json& j, const std::string& p) {
  require_object(ctx, j, p);
  require_known_keys_near(
      ctx, j, p, {"hardware", "slice", "mesh", "parallelism", "replicas", "max_num_seqs", "max_num_batched_tokens"});
  require_key(ctx, j, p, "slice");
  require_key(ctx, j, p, "parallelism");
  ServingPoolSpec pool;
  pool.pointer = p;
  if (j.contains("hardware"))
    pool.hardware = read_hardware_preset(ctx, get_string(ctx, j.at("hardware"), p + "/hardware"), p + "/hardware");
  const std::string sp = p + "/slice";
  const Json& slice = j.at("slice");
  require_object(ctx, slice, sp);
  require_known_keys_near(ctx, slice, sp, {"shape", "dcn"});
  require_key(ctx, slice, sp, "shape");
  require_array(ctx, slice.at("shape"), sp + "/shape");
  for (std::size_t i = 0; i < slice.at("shape").size(); ++i)
    pool.slice_shape.push_back(get_int(ctx, slice.at("shape")[i], child(sp + "/shape", i)));
  if (slice.contains("dcn")) {
    const std::string dp = sp + "/dcn";
    const Json& dcn = slice.at("dcn");
    require_object(ctx, dcn, dp);
    require_known_keys_near(ctx, dcn, dp, {"bandwidth_per_chip", "latency"});
    if (dcn.contains("bandwidth_per_chip"))
      pool.dcn_bandwidth_Bps =
          get_figure(ctx, dcn.at("bandwidth_per_chip"), dp + "/bandwidth_per_chip", &parse_bandwidth);
    if (dcn.contains("latency"))
      pool.dcn_latency_s = get_figure(ctx, dcn.at("latency"), dp + "/latency", &parse_duration);
  }
  if (j.contains("mesh")) pool.mesh = get_string(ctx, j.at("mesh"), p + "/mesh");
  pool.parallelism = read_parallelism(ctx, j.at("parallelism"), p + "/parallelism");
  if (j.contains("replicas")) pool.replicas = get_int(ctx, j.at("replicas"), p + "/replicas");
  if (j.contains("max_num_seqs")) pool.max_num_seqs = get_int(ctx, j.at("max_num_seqs"), p + "/max_num_seqs");
  if (j.contains("max_num_batched_tokens"))
    pool.max_num_batched_tokens = get_int(ctx, j.at("max_num_batched_tokens"), p + "/max_num_batched_tokens");
  return pool;
}

// serving.disaggregated: a prefill and a decode pool, and the network their KV transfers cross.
DisaggregatedSpec read_disaggregated(const Ctx& ctx, const Json& j, const std::string& p) {
  require_object(ctx, j, p);
  require_known_keys_near(ctx, j, p, {"prefill", "decode", "kv_link"});
  require_key(ctx, j, p, "prefill");
  require_key(ctx, j, p, "decode");
  DisaggregatedSpec disaggregated;
  disaggregated.prefill = read_serving_pool(ctx, j.at("prefill"), p + "/prefill");
  disaggregated.decode = read_serving_pool(ctx, j.at("decode"), p + "/decode");
  if (j.contains("kv_link")) disaggregated.kv_link = get_enum(ctx, j.at("kv_link"), p + "/kv_link", kKvLinkNames);
  return disaggregated;
}

}  // namespace

void read_serve_workload(const Ctx& ctx, const Json& j, ScenarioSpec& spec) {
  const std::string p = "/workload";
  require_known_keys_near(ctx, j, p, kServeWorkloadKeys);
  require_key(ctx, j, p, "traffic");
  // The step's workload: a decode step whose batch and context each iteration sets (the step model's).
  Workload step;
  step.mode = WorkloadMode::decode;
  step.batch = 1;
  step.context = 1;
  for (const auto& [key, value] : j.items()) {
    const std::string at = child(p, key);
    if (key == "weight_dtype" || key == "kv_dtype") {
      const std::string text = get_string(ctx, value, at);  // a lambda may not capture a structured binding (clang 14)
      (key == "weight_dtype" ? step.weight_dtype : step.kv_dtype) =
          located(ctx.at(at), [&] { return parse_dtype(text); });
    }
    if (key == "quantization") step.quantization = get_enum(ctx, value, at, kQuantizationNames);
    if (key == "moe_dispatch") step.moe_dispatch = get_enum(ctx, value, at, kMoeDispatchNames);
    if (key == "capacity_factor") step.capacity_factor = get_number(ctx, value, at);
    if (key == "expert_histogram") {
      require_array(ctx, value, at);
      for (std::size_t i = 0; i < value.size(); ++i)
        step.expert_histogram.push_back(get_number(ctx, value[i], child(at, i)));
    }
  }
  ServeSpec serve;
  serve.traffic = read_traffic(ctx, j.at("traffic"), p + "/traffic", serve.trace_file);
  spec.workload = step;
  spec.serve = std::move(serve);
}

void read_serving(const Ctx& ctx, const Json& j, ScenarioSpec& spec) {
  const std::string p = "/serving";
  require_object(ctx, j, p);
  require_known_keys_near(ctx, j, p,
                          {"max_num_seqs", "max_num_batched_tokens", "chunked_prefill", "kv_block_tokens", "replicas",
                           "routing", "disaggregated"});
  if (!spec.serve) ctx.fail(p, "applies to a serving scenario: give \"workload\": {\"mode\": \"serve\", ...}");
  if (j.contains("replicas") && j.contains("disaggregated"))
    ctx.fail(p + "/replicas",
             "a disaggregated deployment gives its replicas per pool (serving.disaggregated.prefill.replicas and "
             ".decode.replicas), got: both \"replicas\" and \"disaggregated\"");
  if (j.contains("disaggregated"))
    spec.serve->disaggregated = read_disaggregated(ctx, j.at("disaggregated"), p + "/disaggregated");
  ServeSpec& serve = *spec.serve;
  for (const auto& [key, value] : j.items()) {
    const std::string at = child(p, key);
    if (key == "max_num_seqs") serve.scheduler.max_num_seqs = get_int(ctx, value, at);
    if (key == "max_num_batched_tokens") serve.scheduler.max_num_batched_tokens = get_int(ctx, value, at);
    if (key == "chunked_prefill") serve.scheduler.chunked_prefill = get_bool(ctx, value, at);
    if (key == "kv_block_tokens") serve.scheduler.kv_block_tokens = get_int(ctx, value, at);
    if (key == "replicas") serve.replicas = get_int(ctx, value, at);
    if (key == "routing") serve.routing = get_enum(ctx, value, at, kRoutingNames);
  }
}

void read_slo(const Ctx& ctx, const Json& j, ScenarioSpec& spec) {
  const std::string p = "/slo";
  require_object(ctx, j, p);
  std::vector<std::string> metrics;
  for (const SloMetric metric : kSloMetrics)
    metrics.emplace_back(kSloMetricNames.name(metric));
  require_known_keys_near(ctx, j, p, metrics);
  if (!spec.serve) ctx.fail(p, "applies to a serving scenario: give \"workload\": {\"mode\": \"serve\", ...}");
  for (const SloMetric metric : kSloMetrics) {
    const std::string name(kSloMetricNames.name(metric));
    if (!j.contains(name)) continue;
    const std::string mp = child(p, name);
    const Json& target = j.at(name);
    require_object(ctx, target, mp);
    if (target.size() != 1)
      ctx.fail(mp, "must be one percentile and its seconds, e.g. {\"p99\": 0.05}, got: " + shown(target));
    require_known_keys_near(ctx, target, mp, {"p50", "p90", "p99"});
    // Its one key, read while the object is held (items() is a view over `target`).
    const std::string key = target.begin().key();
    const SloTarget slo{*kPercentileKeyNames.find(key), get_number(ctx, target.at(key), child(mp, key))};
    (metric == SloMetric::ttft   ? spec.serve->slo.ttft
     : metric == SloMetric::tpot ? spec.serve->slo.tpot
                                 : spec.serve->slo.e2e) = slo;
  }
}

}  // namespace podsim::scenario_detail

namespace podsim {

std::vector<TraceRow> parse_serving_trace(std::string_view text, bool json_lines, const std::string& name) {
  const scenario_detail::Ctx ctx{"", ""};
  const std::string pointer = "/workload/traffic/trace";
  return json_lines ? scenario_detail::read_jsonl_trace(ctx, pointer, name, text)
                    : scenario_detail::read_csv_trace(ctx, pointer, name, text);
}

}  // namespace podsim
