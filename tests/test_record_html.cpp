// The HTML report's views of a record (docs/record.md): a "Timeline" section
// with one rectangle per strand at the record's times (at most
// timeline_strand_limit of them, the note saying so), the critical path's
// strands marked, and a "Critical path" flame graph whose bottom frame is the
// span; none of it without a record; every name escaped. The page stays
// well-formed XML, which Python's xml.etree reads as an independent check
// (skipped without python3). The browser test (tests/browser) checks that it
// renders and zooms.
#include <forkscale/detail/output/html_record.hpp>  // timeline_strand_limit
#include <forkscale/forkscale.hpp>
#include <forkscale/study/html.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace fs = forkscale;
namespace stdfs = std::filesystem;

namespace {

const std::string evil = "<img src=x onerror=alert(1)>";

std::size_t count(const std::string& s, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = s.find(part); at != std::string::npos; at = s.find(part, at + 1)) ++n;
  return n;
}

long fib(int n) {
  fs::charge(1);
  if (n < 2) return n;
  long x = 0, y = 0;
  auto t = fs::spawn([&] { x = fib(n - 1); });
  t();
  {
    fs::call_site cs(fs::site::tagged("</text><script>alert(3)</script>"));
    y = fib(n - 2);
  }
  fs::sync_point sp;
  return x + y;
}

// fib(n) on two threads, under the cost clock, recorded.
fs::report two_threads(int n, bool record) {
  fs::options o;
  o.clock = fs::clock_kind::cost;
  o.record = record;
  return fs::measure(
      evil,
      [n] {
        fs::join_handle h;
        std::thread t(fs::spawn(h, [n] { fib(n); }));
        fib(n - 1);
        fs::sync_point sp(h);
        t.join();
      },
      o);
}

// The attributes `name` of the elements that start with `head`, in page order.
std::vector<std::string> attributes(const std::string& page, const std::string& head, const std::string& name) {
  std::vector<std::string> out;
  const std::string key = " " + name + "=\"";
  for (std::size_t at = page.find(head); at != std::string::npos; at = page.find(head, at + 1)) {
    const std::string element = page.substr(at, page.find('>', at) - at);
    const std::size_t start = element.find(key);
    const std::size_t end = start == std::string::npos ? start : element.find('"', start + key.size());
    out.push_back(end == std::string::npos ? std::string("(none)")
                                           : element.substr(start + key.size(), end - start - key.size()));
  }
  return out;
}

}  // namespace

TEST(RecordHtml, EveryStrandIsDrawnAtItsTimesAndTheCriticalPathIsMarked) {
  const fs::report rep = two_threads(9, true);
  ASSERT_TRUE(rep.record);
  const fs::execution_record& r = *rep.record;
  ASSERT_LT(r.strands.size(), fs::detail::html::timeline_strand_limit);
  const std::string page = fs::to_html(rep);
  EXPECT_EQ(count(page, "<section id=\"fs-timeline\""), 1u);
  EXPECT_EQ(count(page, "<section id=\"fs-critical-path\""), 1u);
  const std::vector<std::string> index = attributes(page, "<rect class=\"fs-strand", "data-strand");
  const std::vector<std::string> start = attributes(page, "<rect class=\"fs-strand", "data-start");
  const std::vector<std::string> end = attributes(page, "<rect class=\"fs-strand", "data-end");
  ASSERT_EQ(index.size(), r.strands.size());
  std::vector<int> seen(r.strands.size(), 0);
  for (std::size_t k = 0; k < index.size(); ++k) {
    const std::size_t i = std::stoul(index[k]);
    ASSERT_LT(i, r.strands.size());
    ++seen[i];
    EXPECT_EQ(start[k], std::to_string(r.strands[i].start_ns));
    EXPECT_EQ(end[k], std::to_string(r.strands[i].end_ns));
  }
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), static_cast<std::ptrdiff_t>(seen.size()));
  EXPECT_EQ(count(page, "<rect class=\"fs-strand fs-critical\""), r.critical_path.size());
  EXPECT_EQ(count(page, "<rect class=\"fs-lane\""), r.threads.size());
  // The flame graph's bottom frame is the whole span; each row above adds up to
  // no more than the row below.
  const std::vector<std::string> depth = attributes(page, "<rect class=\"fs-flame-frame\"", "data-depth");
  const std::vector<std::string> value = attributes(page, "<rect class=\"fs-flame-frame\"", "data-value");
  ASSERT_FALSE(depth.empty());
  std::map<int, std::uint64_t> per_depth;
  for (std::size_t k = 0; k < depth.size(); ++k) per_depth[std::stoi(depth[k])] += std::stoull(value[k]);
  EXPECT_EQ(per_depth[0], rep.span());
  for (const auto& d : per_depth)
    if (d.first > 0) {
      EXPECT_LE(d.second, per_depth[d.first - 1]) << "depth " << d.first;
    }
}

TEST(RecordHtml, NoRecordNoSections) {
  const std::string page = fs::to_html(two_threads(6, false));
  EXPECT_EQ(count(page, "fs-timeline\""), 0u);
  EXPECT_EQ(count(page, "fs-critical-path\""), 0u);
  EXPECT_EQ(count(page, "class=\"fs-strand"), 0u);
}

TEST(RecordHtml, PastTheLimitTheFirstStrandsAreDrawnAndTheNoteSaysSo) {
  const fs::report rep = two_threads(17, true);
  const fs::execution_record& r = *rep.record;
  const std::size_t limit = fs::detail::html::timeline_strand_limit;
  ASSERT_GT(r.strands.size(), limit);
  const std::string page = fs::to_html(rep);
  const std::vector<std::string> start = attributes(page, "<rect class=\"fs-strand", "data-start");
  ASSERT_EQ(start.size(), limit);
  // The first by start time: none drawn starts after one left out.
  std::vector<std::uint64_t> all;
  for (const auto& s : r.strands) all.push_back(s.start_ns);
  std::sort(all.begin(), all.end());
  std::uint64_t latest = 0;
  for (const auto& s : start) latest = std::max<std::uint64_t>(latest, std::stoull(s));
  EXPECT_EQ(latest, all[limit - 1]);
  EXPECT_NE(page.find("Showing the first 5,000 of " + fs::detail::output::grouped(r.strands.size()) + " strands"),
            std::string::npos);
}

TEST(RecordHtml, NamesAreEscapedAndThePageIsXml) {
  const fs::report rep = two_threads(6, true);
  const std::string page = fs::to_html(rep);
  EXPECT_EQ(count(page, "<img"), 0u);
  EXPECT_EQ(count(page, "<script>alert"), 0u);
  EXPECT_GT(count(page, "&lt;/text&gt;&lt;script&gt;alert(3)&lt;/script&gt;"), 0u);
  EXPECT_EQ(count(page, "<script>"), 1u);  // the page's own, nothing else
  const stdfs::path dir =
      stdfs::temp_directory_path() / ("forkscale-record-html-" + std::to_string(std::random_device{}()));
  stdfs::create_directories(dir);
  if (std::system("python3 -c \"import xml.etree.ElementTree\" > /dev/null 2>&1") != 0) {
    stdfs::remove_all(dir);
    GTEST_SKIP() << "python3 is not available: the XML check is skipped";
  }
  std::ofstream(dir / "page.html") << page;
  // Every strand rectangle as XML sees it, and the escaped names as text.
  std::ofstream(dir / "check.py") << R"py(
import sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
rects = [e for e in root.iter() if e.tag == 'rect' and 'fs-strand' in (e.get('class') or '').split()]
labels = [e.get('data-label') for e in rects]
print(len(rects), sum('</text><script>alert(3)</script>' in l for l in labels))
)py";
  const stdfs::path out = dir / "out.txt";
  ASSERT_EQ(std::system(("python3 \"" + (dir / "check.py").string() + "\" \"" + (dir / "page.html").string() +
                         "\" > \"" + out.string() + "\" 2>&1")
                            .c_str()),
            0);
  std::ifstream in(out);
  const std::string result((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::size_t tagged = 0;
  for (const auto& s : rep.record->strands)
    if (s.frame != 0 && rep.record->sites[rep.record->frames[s.frame].site].tag.find("alert(3)") != std::string::npos)
      ++tagged;
  EXPECT_GT(tagged, 0u);
  EXPECT_EQ(result, std::to_string(rep.record->strands.size()) + " " + std::to_string(tagged) + "\n");
  stdfs::remove_all(dir);
}
