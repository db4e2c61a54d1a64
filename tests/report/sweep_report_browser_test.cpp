// The sweep report in a real browser: headless Chromium (Debian's `chromium`) loads a generated page, runs its
// script, and prints the DOM; the test fails on any console message (the page logs nothing, so a message is an
// error: a script exception, or a record's text that escaped into markup and ran) and checks that the DOM holds the
// charts and the table in the order asked for with `#sort=K`. Skips without chromium, except in CI.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "sim/report/sweep_report_html.hpp"
#include "tests/support/skip_unless_ci.hpp"
#include "tests/support/test_checks.hpp"

namespace podsim::report {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

std::string shell_output(const std::string& command) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return out;
  char buffer[4096];
  std::size_t n = 0;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0)
    out.append(buffer, n);
  pclose(pipe);
  return out;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Browser {
  std::string dom;
  std::vector<std::string> console;  // every CONSOLE line chromium logged
};

// Loads `url` in headless chromium (its own profile folder, so tests can run at once) and returns the DOM after the
// page's scripts ran, and the console messages from chromium's log.
Browser load(const std::string& chromium, const fs::path& dir, const std::string& url) {
  const fs::path err = dir / "chromium.err";
  const std::string command =
      "timeout 120 " + chromium +
      " --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir=" + (dir / "profile").string() +
      " --enable-logging=stderr --v=0 --dump-dom '" + url + "' 2>" + err.string();
  Browser browser;
  browser.dom = shell_output(command);
  std::istringstream log(read_text(err));
  for (std::string line; std::getline(log, line);)
    if (line.find(":CONSOLE") != std::string::npos || line.find("Uncaught") != std::string::npos)
      browser.console.push_back(line);
  return browser;
}

// The cells' text of each row of the table of all points, as the browser left it.
std::vector<std::vector<std::string>> table_rows(const std::string& dom) {
  const auto start = dom.find("<table id=\"points\"");
  const auto body = dom.find("<tbody>", start);
  const auto end = dom.find("</tbody>", body);
  std::vector<std::vector<std::string>> rows;
  if (start == std::string::npos || body == std::string::npos || end == std::string::npos) return rows;
  const std::string text = dom.substr(body, end - body);
  static const std::regex row_re("<tr>(.*?)</tr>"), cell_re("<td[^>]*>(.*?)</td>");
  for (auto r = std::sregex_iterator(text.begin(), text.end(), row_re); r != std::sregex_iterator(); ++r) {
    const std::string cells = (*r)[1];
    std::vector<std::string> row;
    for (auto c = std::sregex_iterator(cells.begin(), cells.end(), cell_re); c != std::sregex_iterator(); ++c)
      row.push_back((*c)[1]);
    rows.push_back(std::move(row));
  }
  return rows;
}

// 400 points of /n = 0..399, plans "a", "b" and a plan whose name is markup; book time (n * 37 mod 400) + plan
// offset, so the sort order is known; 2 failed points whose errors hold a script.
std::vector<std::string> records() {
  std::vector<std::string> lines;
  const std::string tricky = "<b>c</b>";
  for (int n = 0; n < 402; ++n) {
    Json line;
    line["point"] = n;
    line["params"] = {{"/n", n}, {"/chip", n % 2 ? "tpu-v6e" : "tpu-v5e"}};
    line["hash"] = "0";
    line["model"] = "book";
    line["error"] = nullptr;
    line["plans"] = Json::object();
    if (n >= 400) {
      line["error"] = "point " + std::to_string(n) + ": <script>console.error(\"injected\")</script>";
    } else {
      const double base = static_cast<double>((n * 37) % 400);
      const std::pair<std::string, double> plans[] = {{"a", 0.1}, {"b", 0.2}, {tricky, 0.3}};
      for (const auto& [name, offset] : plans)
        line["plans"][name] = {{"des_time_s", nullptr},
                               {"book_time_s", (base + offset) * 1e-3},
                               {"memory_per_chip_bytes", (1ull << 30) * static_cast<std::uint64_t>(1 + n % 20)},
                               {"fits_hbm", n % 20 < 16},
                               {"busiest_link", nullptr},
                               {"mfu", nullptr},
                               {"chips", 4 << (n % 4)},
                               {"hbm_bytes", 16ull << 30}};
    }
    lines.push_back(line.dump());
  }
  return lines;
}

TEST(SweepReportBrowser, RendersChartsAndSortsWithoutConsoleErrors) {
  const std::string chromium = shell_output("command -v chromium 2>/dev/null");
  if (chromium.empty()) PODSIM_SKIP_OR_FAIL_IN_CI("chromium is not installed");
  const std::string program = chromium.substr(0, chromium.find('\n'));
  const fs::path dir = fs::temp_directory_path() / ("podsim_sweep_browser_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path page = dir / "report.html";
  {
    std::ofstream out(page);
    write_sweep_html(read_sweep_report_data(records(), "results.jsonl"), "results.jsonl", out);
  }
  const std::string url = "file://" + page.string();

  // In point order: the first 1000 of 1202 rows (400 points x 3 plans, 2 failed points).
  Browser browser = load(program, dir, url);
  EXPECT_TRUE(browser.console.empty()) << browser.console.front();
  ASSERT_NE(browser.dom.find("</html>"), std::string::npos) << "chromium printed no DOM";
  auto rows = table_rows(browser.dom);
  ASSERT_EQ(rows.size(), kSweepTableRowsShown);
  EXPECT_NE(browser.dom.find("Showing 1000 of 1202 rows, in point order."), std::string::npos);
  EXPECT_EQ(rows[0][0], "0");
  EXPECT_EQ(rows[2][3], "&lt;b&gt;c&lt;/b&gt;");  // the plan's name as text
  EXPECT_EQ(rows[999][0], "333");
  // The charts: a Pareto front and, per parameter (/n numeric, /chip two bands), book time and memory.
  EXPECT_EQ(test::count_of(browser.dom, "<svg class=\"chart\""), 4u);
  EXPECT_EQ(test::count_of(browser.dom, "<svg class=\"chart pareto\""), 1u);
  EXPECT_GT(test::count_of(browser.dom, "<circle class=\"fit"), 1000u);
  EXPECT_GT(test::count_of(browser.dom, "<path class=\"nofit"), 100u);
  EXPECT_EQ(test::count_of(browser.dom, "class=\"hbm\""), 2u);  // one capacity, on each memory chart
  EXPECT_EQ(browser.dom.find("<script>console.error"), std::string::npos);

  // Sorted by book time (column 4: point, /n, /chip, plan, book time), descending: the slowest first. Times are
  // (n * 37 mod 400) + 0.1, 0.2 or 0.3 ms; 37 is prime to 400, so n * 37 mod 400 takes each of 0..399 once and
  // every time differs: the slowest is 399.3 ms, plan "<b>c</b>" of the point with n * 37 mod 400 = 399.
  browser = load(program, dir, url + "#sort=-4");
  EXPECT_TRUE(browser.console.empty()) << browser.console.front();
  rows = table_rows(browser.dom);
  ASSERT_EQ(rows.size(), kSweepTableRowsShown);
  EXPECT_NE(browser.dom.find("sorted by book time (descending)"), std::string::npos);
  std::vector<std::pair<double, std::string>> expected;  // (time, point) of every plan, as the sort should order them
  for (int n = 0; n < 400; ++n)
    for (const double offset : {0.1, 0.2, 0.3})
      expected.emplace_back(static_cast<double>((n * 37) % 400) + offset, std::to_string(n));
  std::stable_sort(expected.begin(), expected.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::size_t i = 0; i < rows.size(); ++i)
    ASSERT_EQ(rows[i][0], expected[i].second) << "row " << i;
  EXPECT_EQ(rows[0][3], "&lt;b&gt;c&lt;/b&gt;");
  EXPECT_EQ(rows[0][4], "399.3 ms");
  EXPECT_EQ(rows[1][4], "399.2 ms");

  // Ascending by the error column (the last): the two failed points first, the rows without one after them.
  const std::size_t error_column = 10;  // ..., book time, memory, HBM, fits, chips, on the front, error
  browser = load(program, dir, url + "#sort=" + std::to_string(error_column));
  EXPECT_TRUE(browser.console.empty()) << browser.console.front();
  rows = table_rows(browser.dom);
  ASSERT_GE(rows.size(), 3u);
  EXPECT_EQ(rows[0][0], "400");
  EXPECT_EQ(rows[1][0], "401");
  EXPECT_EQ(rows[0][error_column], "point 400: &lt;script&gt;console.error(\"injected\")&lt;/script&gt;");
  EXPECT_EQ(rows[2][0], "0");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace podsim::report
