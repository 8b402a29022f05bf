// A header-only program that includes forkscale/forkscale.hpp and not
// forkscale/views.hpp: what a measurement reaches only at run time is not
// compiled in, and nothing is lost. FORKSCALE_TRACE and FORKSCALE_FOLDED save
// the report with its record and say how to render the views; the text report
// says in one line that its record's sections are not there.
// (tests/test_views_included.cpp is the same program with views.hpp.)
#include <forkscale/forkscale.hpp>
#include <forkscale/read_report.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "support/views_program.hpp"

namespace fs = forkscale;
namespace stdfs = std::filesystem;

TEST(ViewsHeaderOnly, NoViewIsInstalled) {
  EXPECT_EQ(fs::detail::record_views_writer, nullptr);
  EXPECT_EQ(fs::detail::record_text_writer, nullptr);
  EXPECT_EQ(fs::detail::replay_text_writer, nullptr);
  EXPECT_NE(fs::detail::record_views_fallback, nullptr);
}

TEST(ViewsHeaderOnly, TheTextSaysTheRecordsSectionsAreMissing) {
  const fs::report rep = views_program::measure_recorded();
  ASSERT_TRUE(rep.record);
  const std::string text = rep.to_text();
  EXPECT_EQ(text.find("Parallelism over time (wall-clock"), std::string::npos) << text;
  EXPECT_NE(text.find("Parallelism over time and idle blame"), std::string::npos) << text;
  EXPECT_NE(text.find("Not in this report: the program was built without the views"), std::string::npos) << text;
  EXPECT_NE(text.find("<forkscale/views.hpp>"), std::string::npos) << text;
  // What the program can still write is whole: the record is in the JSON.
  const fs::report back = fs::from_json(rep.to_json());
  ASSERT_TRUE(back.record);
  EXPECT_EQ(back.work(), rep.work());
}

TEST(ViewsHeaderOnly, TheTraceVariableSavesTheReportAndSaysHow) {
  const stdfs::path d = views_program::scratch("views-missing");
  views_program::variable trace("FORKSCALE_TRACE", (d / "t.json").string());
  std::vector<fs::diagnostic> said;
  const fs::report rep = views_program::measure_recorded(&said);
  EXPECT_FALSE(stdfs::exists(d / "t.json"));
  ASSERT_TRUE(stdfs::exists(d / "t.report.json"));
  EXPECT_TRUE(fs::read_report((d / "t.report.json").string()).record);
  ASSERT_EQ(said.size(), 1u);
  EXPECT_EQ(said[0].where, "FORKSCALE_TRACE");
  EXPECT_NE(said[0].problem.find("--to trace -o " + (d / "t.json").string()), std::string::npos) << said[0].problem;
  stdfs::remove_all(d);
}
