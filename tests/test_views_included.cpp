// The program of tests/test_views_header_only.cpp, header-only, with
// forkscale/views.hpp included: the views a measurement reaches at run time
// are compiled in and installed.
#include <forkscale/forkscale.hpp>
#include <forkscale/views.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "support/views_program.hpp"

namespace fs = forkscale;
namespace stdfs = std::filesystem;

TEST(ViewsIncluded, EveryViewIsInstalled) {
  EXPECT_NE(fs::detail::record_views_writer, nullptr);
  EXPECT_NE(fs::detail::record_text_writer, nullptr);
  EXPECT_NE(fs::detail::replay_text_writer, nullptr);
}

TEST(ViewsIncluded, TheTextHasTheRecordsSections) {
  const fs::report rep = views_program::measure_recorded();
  ASSERT_TRUE(rep.record);
  const std::string text = rep.to_text();
  EXPECT_NE(text.find("Parallelism over time (wall-clock"), std::string::npos) << text;
  EXPECT_NE(text.find("Idle blame"), std::string::npos) << text;
  EXPECT_EQ(text.find("built without the views"), std::string::npos) << text;
}

TEST(ViewsIncluded, TheTraceVariableWritesTheTrace) {
  const stdfs::path d = views_program::scratch("views-included");
  views_program::variable trace("FORKSCALE_TRACE", (d / "t.json").string());
  std::vector<fs::diagnostic> said;
  const fs::report rep = views_program::measure_recorded(&said);
  EXPECT_TRUE(said.empty());
  ASSERT_TRUE(stdfs::exists(d / "t.json"));
  EXPECT_FALSE(stdfs::exists(d / "t.report.json"));
  EXPECT_EQ(stdfs::file_size(d / "t.json"), rep.to_trace().size());
  stdfs::remove_all(d);
}
