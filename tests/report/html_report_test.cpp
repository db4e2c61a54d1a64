// The HTML report of the hand-built scenario (sample_run.hpp): self-contained, every name escaped, the two SVG charts,
// the fit verdicts and the checks; and, when python3 is there, a tag-balance check with html.parser.
#include "sim/report/html_report.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/report/sample_run.hpp"
#include "tests/support/skip_unless_ci.hpp"
#include "tests/support/test_checks.hpp"

namespace podsim::report {
namespace {

using test::sample_run;

std::string html_of(const std::vector<ScenarioRun>& runs) {
  std::ostringstream out;
  write_html_report(runs, out);
  return out.str();
}

TEST(HtmlReport, Escape) {
  EXPECT_EQ(html_escape(R"(a<b & "c" 'd'>)"), "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;");
  EXPECT_EQ(html_escape("plain"), "plain");
}

TEST(HtmlReport, SelfContainedAndEscaped) {
  const std::string html = html_of({sample_run()});
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("<meta charset=\"utf-8\">"), std::string::npos);
  EXPECT_EQ(html.find("http"), std::string::npos);  // no links, scripts, fonts or SVG namespace URLs
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("url("), std::string::npos);
  // Names with markup characters appear only escaped.
  EXPECT_EQ(html.find("tp<x>"), std::string::npos);
  EXPECT_GE(test::count_of(html, "tp&lt;x&gt;"), 4u);  // comparison row, two chart labels, plan heading
  EXPECT_NE(html.find("out,&quot;final&quot;"), std::string::npos);
  EXPECT_NE(html.find("tensor parallel &amp; &quot;sequence&quot; parallel"), std::string::npos);
}

TEST(HtmlReport, SaysWhetherTheDesWasCalibrated) {
  ScenarioRun run = sample_run();
  run.calibrated = false;
  EXPECT_NE(html_of({run}).find("<td>des</td><td>the preset's figures (no calibration)</td>"), std::string::npos);
  run.calibrated = true;
  run.calibration_source = "CAL rows a & b";
  const std::string html = html_of({run});
  EXPECT_NE(html.find("<td>des</td><td>calibrated: CAL rows a &amp; b (--uncalibrated for the preset's figures)</td>"),
            std::string::npos);
}

TEST(HtmlReport, ComparisonChartsTablesAndChecks) {
  const std::string html = html_of({sample_run()});
  // des vs book time, memory vs HBM, per plan a step breakdown and its slice (slice_drawing_test.cpp draws it).
  EXPECT_EQ(test::count_of(html, "<svg"), 6u);
  EXPECT_EQ(test::count_of(html, "</svg>"), 6u);
  EXPECT_EQ(test::count_of(html, "<svg class=\"slice\""), 2u);
  // fsdp's step breakdown on 640 px for 7.5 us: compute 1.5 us 128 px, exposed 4 us 341.3 px, bubble 2 us 170.7 px.
  EXPECT_NE(html.find("width=\"128.0\" height=\"22\" fill=\"#59a14f\""), std::string::npos);
  EXPECT_NE(html.find("width=\"341.3\" height=\"22\" fill=\"#e15759\""), std::string::npos);
  EXPECT_NE(html.find("width=\"170.7\" height=\"22\" fill=\"#bab0ac\""), std::string::npos);
  EXPECT_NE(html.find("Step on chip 2 (its last task ends last): compute 1.5 us, exposed communication 4 us"),
            std::string::npos);
  // The time chart: fsdp's des bar (7.5 us) is the longest, 520 px; its book bar is 6 / 7.5 of it, 416 px.
  EXPECT_NE(html.find("width=\"520.0\" height=\"14\" fill=\"#4e79a7\""), std::string::npos);
  EXPECT_NE(html.find("width=\"416.0\" height=\"14\" fill=\"#f28e2b\""), std::string::npos);
  // The memory chart: tp<x> (19.25 GiB, the largest) is 520 px and red; fsdp 12 / 19.25 of it, 324.2 px, green.
  EXPECT_NE(html.find("width=\"520.0\" height=\"16\" fill=\"#e15759\""), std::string::npos);
  EXPECT_NE(html.find("width=\"324.2\" height=\"16\" fill=\"#59a14f\""), std::string::npos);
  EXPECT_NE(html.find("Fastest plan that fits: fsdp"), std::string::npos);
  EXPECT_NE(html.find("DOES NOT FIT by 3.25 GiB"), std::string::npos);
  EXPECT_NE(html.find("all-gather X (V=32 MiB)"), std::string::npos);
  EXPECT_NE(html.find("<td>ici.x+.0</td>"), std::string::npos);
  EXPECT_EQ(test::count_of(html, "<span class=\"pass\">PASS</span>"), 2u);
  EXPECT_EQ(test::count_of(html, "<span class=\"fail\">FAIL</span>"), 1u);
  EXPECT_NE(html.find("tp&lt;x&gt;: fits_hbm"), std::string::npos);
}

TEST(HtmlReport, SeveralScenariosInOnePage) {
  ScenarioRun second = sample_run();
  second.name = "second & last";
  const std::string html = html_of({sample_run(), second});
  EXPECT_EQ(test::count_of(html, "<section class=\"scenario\">"), 2u);
  EXPECT_NE(html.find("Scenario second &amp; last"), std::string::npos);
  EXPECT_EQ(test::count_of(html, "<html"), 1u);
}

TEST(HtmlReport, LongPlanNamesAreShortenedInTheChartsOnly) {
  ScenarioRun run = sample_run();
  run.plans[0].name = "abcdefghijklmnopqrstuvwxyz0123456789";  // 36 characters
  const std::string html = html_of({run});
  EXPECT_EQ(test::count_of(html, ">abcdefghijklmnopqrstuvw…</text>"),
            2u);  // 23 characters and an ellipsis, both charts
  EXPECT_NE(html.find("<td>abcdefghijklmnopqrstuvwxyz0123456789</td>"), std::string::npos);
}

// Every non-void element is closed in order (python3's html.parser; skipped without python3, failed in CI).
TEST(HtmlReport, TagsBalance) {
  if (std::system("python3 -c 'import html.parser' >/dev/null 2>&1") != 0) PODSIM_SKIP_OR_FAIL_IN_CI("no python3");
  const auto dir = std::filesystem::temp_directory_path() / ("podsim_html_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto page = dir / "report.html", script = dir / "check.py";
  std::ofstream(page) << html_of({sample_run()});
  std::ofstream(script) << R"(import sys
from html.parser import HTMLParser
VOID = {"meta", "br", "hr", "img", "input", "link", "rect", "line"}
class Check(HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack = []
    def handle_starttag(self, tag, attrs):
        if tag not in VOID:
            self.stack.append(tag)
    def handle_startendtag(self, tag, attrs):
        pass
    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            sys.exit("unexpected </%s> at %s, open: %s" % (tag, self.getpos(), self.stack))
        self.stack.pop()
check = Check()
check.feed(open(sys.argv[1], encoding="utf-8").read())
check.close()
if check.stack:
    sys.exit("unclosed: %s" % check.stack)
)";
  const std::string command = "python3 " + script.string() + " " + page.string();
  EXPECT_EQ(std::system(command.c_str()), 0);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace podsim::report
