// The sweep report page: charts drawn here as SVG (sweep_report_charts.cpp), the lists as HTML tables, and the table
// of all points as JSON in the page with a small script that shows and sorts it (its number formats mirror
// format_seconds and bytes_text: four significant digits in the largest unit not above the value).
#include "sim/report/sweep_report_html.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "models/common/units.hpp"
#include "sim/report/html_report.hpp"
#include "sim/report/run_report.hpp"
#include "sim/report/sweep_report_charts.hpp"

namespace podsim::report {
namespace {

using Json = nlohmann::ordered_json;

const char* const kSweepReportStyle = R"(
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; max-width: 1400px; }
h1 { font-size: 1.6em; } h2 { border-bottom: 2px solid #444; padding-bottom: .2em; margin-top: 1.6em; }
table { border-collapse: collapse; margin: .6em 0; font-size: .88em; }
th, td { border: 1px solid #ccc; padding: .2em .5em; text-align: left; vertical-align: top; white-space: nowrap; }
td.err { white-space: normal; min-width: 30em; }
div.wide { overflow-x: auto; } div.charts { display: flex; flex-wrap: wrap; gap: 0 1em; }
div.charts > div { width: min-content; }
th { background: #f0f0f0; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
table.sortable th { cursor: pointer; user-select: none; } table.sortable th:hover { background: #e0e0e0; }
.muted { color: #666; } .fail { color: #b3261e; font-weight: bold; }
svg { display: block; margin: .6em 0; font-size: 12px; } svg text { fill: #222; } svg text.title { font-weight: bold; }
circle.fit { stroke: none; fill-opacity: .8; } path.nofit { fill: none; stroke-width: 2; }
circle.onfront { stroke: #222; stroke-width: 2; fill-opacity: 1; }
)";

// The table's script: shows the first rows in the current order, sorts on a header's click (again: the other way;
// empty cells last either way, ties in point order), and reads `#sort=K` or `#sort=-K` (column K, from 0) from the
// address so that a sorted view can be linked.
const char* const kScript = R"(
(function () {
  var data = JSON.parse(document.getElementById('sweep-rows').textContent);
  var kinds = data.kinds, rows = data.rows, table = document.getElementById('points');
  var status = document.getElementById('points-status'), all = document.getElementById('points-all');
  var limit = data.shown, column = -1, direction = 1, order = rows.map(function (r, i) { return i; });
  var SECONDS = [['ps', 1e-12], ['ns', 1e-9], ['us', 1e-6], ['ms', 1e-3], ['s', 1]];
  var BYTES = [['B', 1], ['KiB', 1024], ['MiB', 1048576], ['GiB', 1073741824], ['TiB', 1099511627776],
               ['PiB', 1125899906842624]];
  function g4(x) { return String(Number(x.toPrecision(4))); }
  function scaled(v, units) {
    if (v === 0) return '0 ' + (units === SECONDS ? 's' : units[0][0]);
    var pick = 0;
    for (var i = 0; i < units.length; i++) if (Math.abs(v) >= units[i][1]) pick = i;
    if (pick + 1 < units.length &&
        Math.abs(Number((v / units[pick][1]).toPrecision(4))) * units[pick][1] >= units[pick + 1][1]) pick++;
    return g4(v / units[pick][1]) + ' ' + units[pick][0];
  }
  function esc(s) {
    return s.replace(/[&<>"']/g, function (c) {
      return {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'}[c];
    });
  }
  function cell(v, kind) {
    if (v === null) return '<td></td>';
    var num = kind === 'int' || kind === 's' || kind === 'bytes' || kind === 'usd' || kind === 'days' ||
              (kind === 'value' && typeof v === 'number');
    var text;
    if (kind === 's') text = scaled(v, SECONDS);
    else if (kind === 'bytes') text = scaled(v, BYTES);
    else if (kind === 'usd') text = '$' + g4(v);
    else if (kind === 'days') text = g4(v) + ' days';
    else if (kind === 'bool') return v ? '<td>yes</td>' : '<td><span class="fail">no</span></td>';
    else if (kind === 'mark') return v ? '<td>yes</td>' : '<td></td>';
    else text = typeof v === 'string' ? v : JSON.stringify(v);
    return (num ? '<td class="num">' : kind === 'text' && text.length > 60 ? '<td class="err">' : '<td>') +
           esc(text) + '</td>';
  }
  function compare(a, b) {
    if (typeof a === 'number' && typeof b === 'number') return a - b;
    if (typeof a === 'boolean' && typeof b === 'boolean') return (a ? 1 : 0) - (b ? 1 : 0);
    var x = typeof a === 'string' ? a : JSON.stringify(a), y = typeof b === 'string' ? b : JSON.stringify(b);
    return x.localeCompare(y, undefined, {numeric: true});
  }
  function sort(c, d) {
    column = c; direction = d;
    order.sort(function (i, j) {
      var a = rows[i][c], b = rows[j][c];
      if (a === null || b === null) return a === b ? i - j : a === null ? 1 : -1;
      return direction * compare(a, b) || i - j;
    });
    var heads = table.tHead.rows[0].cells;
    for (var k = 0; k < heads.length; k++)
      heads[k].setAttribute('aria-sort', k === c ? (d > 0 ? 'ascending' : 'descending') : 'none');
  }
  function render() {
    var n = Math.min(limit, order.length), html = [];
    for (var k = 0; k < n; k++) {
      var row = rows[order[k]], cells = '';
      for (var c = 0; c < row.length; c++) cells += cell(row[c], kinds[c]);
      html.push('<tr>' + cells + '</tr>');
    }
    table.tBodies[0].innerHTML = html.join('');
    var heads = table.tHead.rows[0].cells;
    for (var h = 0; h < heads.length; h++)
      heads[h].textContent = data.columns[h] + (h === column ? (direction > 0 ? ' \u25b2' : ' \u25bc') : '');
    status.textContent = 'Showing ' + n + ' of ' + order.length + ' rows' +
        (column >= 0 ? ', sorted by ' + data.columns[column] + (direction > 0 ? ' (ascending)' : ' (descending)')
                     : ', in point order') + '. Click a column header to sort by it.';
    all.hidden = n >= order.length;
  }
  table.tHead.addEventListener('click', function (e) {
    var th = e.target.closest('th');
    if (!th) return;
    sort(th.cellIndex, th.cellIndex === column ? -direction : 1);
    render();
  });
  all.addEventListener('click', function () { limit = order.length; render(); });
  var wanted = /^#sort=(-?)(\d+)$/.exec(location.hash);
  if (wanted && Number(wanted[2]) < data.columns.length) sort(Number(wanted[2]), wanted[1] ? -1 : 1);
  render();
})();
)";

std::string row(const std::vector<std::string>& cells, const std::vector<bool>& numeric = {}, bool header = false) {
  std::string out = "<tr>";
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (header)
      out += "<th>" + cells[i] + "</th>";
    else
      out += (i < numeric.size() && numeric[i] ? "<td class=\"num\">" : "<td>") + cells[i] + "</td>";
  }
  return out + "</tr>\n";
}

Json optional_json(const std::optional<double>& value) {
  return value ? Json(*value) : Json(nullptr);
}

std::string summary_html(const SweepReportData& data, const std::string& source) {
  std::vector<std::string> models;
  for (const SweepReportPoint& p : data.points)
    if (std::find(models.begin(), models.end(), p.model) == models.end()) models.push_back(p.model);
  std::string plans;
  for (const auto& name : data.series)
    plans += (plans.empty() ? "" : ", ") + esc(name);
  std::string out =
      fmt::format("<p>{}: {} points ({} ran, {} failed), {} plans of points; model {}. Plans: {}.</p>\n", esc(source),
                  data.points.size(), data.points.size() - data.failed, data.failed, data.marks.size(),
                  esc(fmt::format("{}", fmt::join(models, ", "))), plans.empty() ? "none" : plans);
  out +=
      "<p class=\"muted\">Each mark is one plan of one point (for a model-level scenario, one of the plan search's "
      "best candidates, rank1 to rank3). des: simulated hop by hop; book: the closed form, ops one after another. "
      "Memory per chip is the peak of the simulated timeline when simulated, else of the closed form's. Swept "
      "numbers go on a linear axis, or a logarithmic one when they span more than 30 times; other values (chips, "
      "meshes) one band each, in the sweep's order. Hover over a mark for its point.</p>\n";
  return out;
}

std::string thinning_note(const SweepChart& chart) {
  if (chart.cell_px <= 0) return "";
  return fmt::format(
      "<p class=\"muted\">{} marks drawn for {} plans of points: marks of one plan within {} px of one another are "
      "drawn once (the table below has every one).</p>\n",
      chart.drawn, chart.placed, chart.cell_px);
}

std::string params_text(const SweepReportData& data, const SweepReportPoint& point) {
  std::string out;
  for (std::size_t i = 0; i < data.pointers.size(); ++i)
    out += (i ? ", " : "") + data.pointers[i] + " = " + value_text(point.values[i]);
  return out;
}

std::string pareto_html(const SweepReportData& data) {
  const ParetoCost cost = data.priced ? ParetoCost::cost_per_million_tokens : ParetoCost::chips;
  const std::vector<std::size_t> front = pareto_front(data.marks, cost);
  const char* against = data.priced ? "cost per million tokens" : "chips";
  std::string out = fmt::format("<h2>Pareto front: step time against {}</h2>\n", against);
  const SweepChart chart = pareto_chart(data, cost, front);
  if (chart.svg.empty())
    return out + "<p class=\"muted\">No plan of a point fits HBM with a step time and " +
           (data.priced ? std::string("a cost") : std::string("a chip count")) +
           " (records written before podsim reported chips have none).</p>\n";
  out += fmt::format(
      "<p class=\"muted\">Every plan of every point that fits HBM, by its step time (des when simulated, else book) "
      "and {}{}; the front (ringed, joined by the staircase) holds those that no other beats on both. Plans that do "
      "not fit are left out.</p>\n",
      against, data.priced ? " (price per chip-hour x chips x step time / tokens per step)" : "");
  out += chart.svg + thinning_note(chart);
  std::vector<std::string> header = {data.priced ? "$/1M tokens" : "chips", "step time", "point"};
  for (const auto& pointer : data.pointers)
    header.push_back(esc(pointer));
  header.push_back("plan");
  if (data.has_candidates) header.push_back("candidate");
  std::string table = "<div class=\"wide\"><table class=\"front\">\n" + row(header, {}, true);
  for (std::size_t f = 0; f < front.size() && f < kSweepRowsListed; ++f) {
    const SweepMark& m = data.marks[front[f]];
    const SweepReportPoint& p = data.points[m.record];
    const double c = *pareto_cost(m, cost);
    std::vector<std::string> cells = {esc(data.priced ? "$" + format_number(c) : format_number(c)),
                                      esc(format_seconds(*m.step_s())), std::to_string(p.point)};
    std::vector<bool> numeric = {true, true, true};
    for (const auto& value : p.values) {
      cells.push_back(esc(value_text(value)));
      numeric.push_back(value.is_number());
    }
    cells.push_back(esc(data.series[m.series]));
    if (data.has_candidates) cells.push_back(esc(m.candidate));
    table += row(cells, numeric);
  }
  out += fmt::format("<p>The front: {} of {} plans of points that fit{}.</p>\n", front.size(), chart.placed,
                     front.size() > kSweepRowsListed ? fmt::format(", the first {} listed", kSweepRowsListed) : "");
  return out + table + "</table></div>\n";
}

std::string parameter_html(const SweepReportData& data, std::size_t parameter) {
  std::string out = "<h2>Against " + esc(data.pointers[parameter]) + "</h2>\n<div class=\"charts\">\n";
  std::vector<SweepQuantity> quantities;
  if (data.has_des) quantities.push_back(SweepQuantity::des_time);
  if (data.has_book) quantities.push_back(SweepQuantity::book_time);
  quantities.push_back(SweepQuantity::memory);
  if (data.has_goal) quantities.push_back(SweepQuantity::days_to_train);
  if (data.has_goal_cost) quantities.push_back(SweepQuantity::goal_cost);
  for (const SweepQuantity q : quantities) {
    const SweepChart chart = parameter_chart(data, parameter, q);
    if (!chart.svg.empty()) out += "<div>" + chart.svg + thinning_note(chart) + "</div>\n";
  }
  return out + "</div>\n";
}

std::string failed_html(const SweepReportData& data) {
  if (data.failed == 0) return "";
  std::string out = fmt::format("<h2>Failed points ({})</h2>\n", data.failed);
  if (data.failed > kSweepRowsListed)
    out += fmt::format("<p class=\"muted\">The first {} listed; the table below and results.jsonl have them all.</p>\n",
                       kSweepRowsListed);
  out += "<table class=\"failed\">\n" + row({"point", "parameters", "error"}, {}, true);
  std::size_t listed = 0;
  for (const SweepReportPoint& p : data.points) {
    if (!p.error || listed++ >= kSweepRowsListed) continue;
    out += "<tr><td class=\"num\">" + std::to_string(p.point) + "</td><td>" + esc(params_text(data, p)) +
           "</td><td class=\"err\">" + esc(*p.error) + "</td></tr>\n";
  }
  return out + "</table>\n";
}

std::string table_html(const SweepReportData& data) {
  const SweepTable table = sweep_table(data);
  Json payload;
  payload["columns"] = table.columns;
  payload["kinds"] = table.kinds;
  payload["shown"] = kSweepTableRowsShown;
  payload["rows"] = table.rows;
  std::string out = "<h2>All points</h2>\n<p id=\"points-status\" class=\"muted\"></p>\n";
  out += "<noscript><p>The table needs JavaScript; results.csv holds the same figures.</p></noscript>\n";
  out += "<div class=\"wide\"><table id=\"points\" class=\"sortable\"><thead><tr>";
  for (const auto& column : table.columns)
    out += "<th>" + esc(column) + "</th>";
  out += "</tr></thead><tbody></tbody></table></div>\n";
  out += fmt::format("<p><button id=\"points-all\" type=\"button\" hidden>Show all {} rows</button></p>\n",
                     table.rows.size());
  out += "<script type=\"application/json\" id=\"sweep-rows\">" + script_json(payload) + "</script>\n";
  return out + "<script>" + kScript + "</script>\n";
}

}  // namespace

std::string script_json(const Json& value) {
  const std::string text = value.dump(-1, ' ', false, Json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c == '<')
      out += "\\u003c";
    else
      out += c;
  }
  return out;
}

SweepTable sweep_table(const SweepReportData& data) {
  SweepTable table;
  const auto add = [&](const std::string& column, const char* kind) {
    table.columns.push_back(column);
    table.kinds.push_back(kind);
  };
  add("point", "int");
  for (const auto& pointer : data.pointers)
    add(pointer, "value");
  add("plan", "text");
  if (data.has_candidates) add("candidate", "text");
  if (data.has_des) add("des time", "s");
  if (data.has_book) add("book time", "s");
  add("memory per chip", "bytes");
  add("HBM per chip", "bytes");
  add("fits HBM", "bool");
  add("chips", "int");
  const bool costs = std::any_of(data.marks.begin(), data.marks.end(),
                                 [](const SweepMark& m) { return m.cost_per_million_tokens.has_value(); });
  if (costs) add("$/1M tokens", "usd");
  if (data.has_goal) add("days to train", "days");
  if (data.has_goal_cost) add("cost to train", "usd");
  if (data.has_goal) add("meets goal", "bool");
  add("on the front", "mark");
  if (data.failed > 0) add("error", "text");
  const ParetoCost cost = data.priced ? ParetoCost::cost_per_million_tokens : ParetoCost::chips;
  std::vector<bool> on_front(data.marks.size(), false);
  for (const std::size_t i : pareto_front(data.marks, cost))
    on_front[i] = true;
  const auto point_cells = [&](const SweepReportPoint& p) {
    Json cells = Json::array({p.point});
    for (const auto& value : p.values)
      cells.push_back(value);
    return cells;
  };
  std::size_t next = 0;  // marks are in record order
  for (std::size_t r = 0; r < data.points.size(); ++r) {
    const SweepReportPoint& p = data.points[r];
    if (p.error) {
      Json cells = point_cells(p);
      while (cells.size() + 1 < table.columns.size())
        cells.push_back(nullptr);
      cells.push_back(*p.error);
      table.rows.push_back(std::move(cells));
    }
    for (; next < data.marks.size() && data.marks[next].record == r; ++next) {
      const SweepMark& m = data.marks[next];
      Json cells = point_cells(p);
      cells.push_back(data.series[m.series]);
      if (data.has_candidates) cells.push_back(m.candidate.empty() ? Json(nullptr) : Json(m.candidate));
      if (data.has_des) cells.push_back(optional_json(m.des_time_s));
      if (data.has_book) cells.push_back(optional_json(m.book_time_s));
      cells.push_back(m.memory_per_chip_bytes ? Json(*m.memory_per_chip_bytes) : Json(nullptr));
      cells.push_back(m.hbm_bytes ? Json(*m.hbm_bytes) : Json(nullptr));
      cells.push_back(m.fits_hbm);
      cells.push_back(m.chips ? Json(*m.chips) : Json(nullptr));
      if (costs) cells.push_back(optional_json(m.cost_per_million_tokens));
      if (data.has_goal) cells.push_back(optional_json(m.time_to_train_days));
      if (data.has_goal_cost) cells.push_back(optional_json(m.cost_usd));
      if (data.has_goal) cells.push_back(m.meets_goal ? Json(*m.meets_goal) : Json(nullptr));
      cells.push_back(static_cast<bool>(on_front[next]));
      if (data.failed > 0) cells.push_back(nullptr);
      table.rows.push_back(std::move(cells));
    }
  }
  return table;
}

void write_sweep_html(const SweepReportData& data, const std::string& source, std::ostream& out) {
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>podsim sweep: " << esc(source)
      << "</title>\n<link rel=\"icon\" href=\"data:,\">\n<style>" << kSweepReportStyle;
  for (std::size_t s = 0; s < std::max<std::size_t>(1, data.series.size()) && s < 9; ++s)
    out << ".s" << s << " { fill: " << sweep_series_colour(s) << "; stroke: " << sweep_series_colour(s) << "; }\n";
  out << "</style>\n</head>\n<body>\n<h1>podsim sweep</h1>\n" << summary_html(data, source);
  if (!data.marks.empty()) {
    out << sweep_legend_svg(data) << pareto_html(data);
    for (std::size_t i = 0; i < data.pointers.size(); ++i)
      out << parameter_html(data, i);
  }
  out << failed_html(data) << table_html(data) << "</body>\n</html>\n";
}

}  // namespace podsim::report
