// The results files: CSV flattening and quoting, whole lines only when reading back, shards merged by point.
#include "sim/sweep/sweep_results.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "models/common/error.hpp"
#include "sim/sweep/sweep_csv.hpp"
#include "tests/support/sweep_files.hpp"

namespace podsim {
namespace {

const std::string kGood = R"({"point":0,"params":{"/a":1,"/b":"x"},"hash":"00","model":"book","error":null,)"
                          R"("plans":{"p":{"des_time_s":null,"book_time_s":0.5,"fits_hbm":true}}})";
const std::string kFailed =
    R"({"point":1,"params":{"/a":2,"/b":"y"},"hash":"01","model":"book","error":"s.json#point 1: /x: bad, got: \"q\"",)"
    R"("plans":{}})";

std::filesystem::path results_dir(const std::string& name) {
  return podsim::test::fresh_dir("podsim_sweep", name);
}

TEST(SweepCsv, FlattensPlansAndQuotesText) {
  std::ostringstream out;
  write_sweep_csv({kGood, kFailed}, out);
  EXPECT_EQ(out.str(),
            "point,hash,model,error,/a,/b,p.des_time_s,p.book_time_s,p.fits_hbm\n"
            "0,00,book,,1,x,,0.5,true\n"
            "1,01,book,\"s.json#point 1: /x: bad, got: \"\"q\"\"\",2,y,,,\n");
}

// Issue 33, class 8: a swept text value a spreadsheet would run as a formula is written as text (' first); negative
// numbers stay numbers.
TEST(SweepCsv, FormulasInValuesBecomeText) {
  std::ostringstream out;
  write_sweep_csv({R"j({"point":0,"params":{"/a":-3,"/b":"=HYPERLINK(\"x\")","/c":"@A1"},"hash":"00",)j"
                   R"j("model":"book","error":null,"plans":{}})j"},
                  out);
  EXPECT_EQ(out.str(),
            "point,hash,model,error,/a,/b,/c\n"
            "0,00,book,,-3,\"'=HYPERLINK(\"\"x\"\")\",'@A1\n");
}

TEST(SweepResults, ReadingDropsAPartialLastLine) {
  const auto dir = results_dir("partial");
  const auto path = dir / "results.jsonl";
  std::ofstream(path) << kGood << "\n" << kFailed.substr(0, 20);
  const ResultLines read = read_result_lines(path.string());
  ASSERT_EQ(read.lines.size(), 1u);
  EXPECT_EQ(read.lines[0], kGood);
  EXPECT_EQ(read.whole_bytes, kGood.size() + 1);
  EXPECT_TRUE(record_key(kFailed, "w").failed);
  EXPECT_EQ(record_key(kGood, "w").hash, "00");
  EXPECT_THROW(record_key(R"({"point": 1})", "w"), InputError);
  std::filesystem::remove_all(dir);
}

TEST(SweepResults, MergeOrdersByPointAndRefusesConflicts) {
  const auto a = results_dir("a"), b = results_dir("b");
  std::ofstream(a / "results.jsonl") << kFailed << "\n";
  std::ofstream(b / "results.jsonl") << kGood << "\n" << kFailed << "\n";  // a point in two shards, same record
  EXPECT_EQ(merge_shards({a.string(), b.string()}), (std::vector<std::string>{kGood, kFailed}));
  std::string other = kGood;
  other.replace(other.find("0.5"), 3, "0.6");
  std::ofstream(a / "results.jsonl") << other << "\n";
  try {
    merge_shards({a.string(), b.string()});
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), (b / "results.jsonl").string() + ": line 1: point 0 differs from its record at " +
                                         (a / "results.jsonl").string() + ": line 1, got: two results for one point");
  }
  std::filesystem::remove_all(a);
  std::filesystem::remove_all(b);
}

}  // namespace
}  // namespace podsim
