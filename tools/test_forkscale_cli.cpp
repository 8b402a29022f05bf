// forkscale-report, run as a user runs it: conversions and comparisons of real
// reports written by the examples (quicksort, fib), of a real scaling study;
// bad files and bad usage end with exit status 2 and exactly one line on stderr
// naming the file and the problem; thousands of mutated reports never crash it
// (in-process through forkscale_cli::run, and a few hundred through the real
// executable, where a crash would show as a signal). predict replays a recorded
// report as the library does; calibrate stores the burden.
#include "forkscale_cli.hpp"

#include <forkscale/forkscale.hpp>
#include <forkscale/read_report.hpp>
#include <forkscale/study/study.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#if !defined(_WIN32)
#include <sys/wait.h>
#endif

namespace fs = forkscale;
namespace stdfs = std::filesystem;

namespace {

std::string read_file(const stdfs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_file(const stdfs::path& p, const std::string& s) {
  std::ofstream out(p, std::ios::binary);
  out << s;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (const char c : s) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  return out + "'";
}

struct outcome {
  int status = -1;        // exit status
  bool signaled = false;  // killed by a signal (a crash)
  std::string out, err;
};

// The lines of stderr (none for an empty one).
std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> v;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) v.push_back(l);
  return v;
}

long fib(int n) {
  fs::charge(1);
  if (n < 2) return n;
  long x = 0, y = 0;
  fs::spawn([&] { x = fib(n - 1); })();
  y = fib(n - 2);
  { fs::sync_point sp; }
  return x + y;
}

class Cli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new stdfs::path(stdfs::path(FORKSCALE_TEST_TMP) / ("cli_" + std::to_string(std::random_device{}())));
    stdfs::create_directories(*dir_);
    // Reports as the examples write them (--out writes .json, .csv and .txt).
#ifdef FORKSCALE_QUICKSORT_EXE
    for (const char* n : {"100000", "200000"}) {
      const outcome o =
          run(FORKSCALE_QUICKSORT_EXE, {n, "--clock", "cost", "--out", (*dir_ / ("q" + std::string(n))).string()});
      ASSERT_EQ(o.status, 0) << o.err;
    }
    before_ = new stdfs::path(*dir_ / "q100000" / "quicksort");
    after_ = new stdfs::path(*dir_ / "q200000" / "quicksort");
#else
    std::cout << "[   NOTE   ] the quicksort example is not built: reports are made in-process\n";
    fs::options opt;
    opt.clock = fs::clock_kind::cost;
    stdfs::create_directories(*dir_ / "a");
    stdfs::create_directories(*dir_ / "b");
    before_ = new stdfs::path(*dir_ / "a" / "fib");
    after_ = new stdfs::path(*dir_ / "b" / "fib");
    for (int k = 0; k < 2; ++k) {
      const fs::report r = fs::measure(
          "fib", [k] { fib(14 + 2 * k); }, opt);
      const stdfs::path base = k ? *after_ : *before_;
      r.write_json(base.string() + ".json");
      r.write_csv(base.string() + ".csv");
      r.write_text(base.string() + ".txt");
    }
#endif
#ifdef FORKSCALE_FIB_EXE
    {
      const outcome o = run(FORKSCALE_FIB_EXE, {"18", "--clock", "cost", "--out", (*dir_ / "fib").string()});
      ASSERT_EQ(o.status, 0) << o.err;
    }
#endif
    // A real (tiny) scaling study.
    fs::study_workload w;
    std::vector<int> data(20000);
    w.baseline = [&] { std::fill(data.begin(), data.end(), 1); };
    w.parallel = [&](unsigned p) {
      fs::join_handle h;
      std::thread t;
      if (p > 1) t = std::thread(fs::spawn(h, [&] { std::fill(data.begin(), data.begin() + 10000, 2); }));
      std::fill(data.begin() + 10000, data.end(), 3);
      fs::sync_point sp(h);
      if (t.joinable()) t.join();
    };
    fs::study_options so;
    so.processors = {2};
    so.repetitions = 2;
    so.hardware_threads = 2;
    study_ = new stdfs::path(*dir_ / "study.json");
    fs::run_study("fill", w, so).write_json(study_->string());
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    if (!HasFailure()) stdfs::remove_all(*dir_, ec);
    delete dir_;
    delete before_;
    delete after_;
    delete study_;
  }

  static outcome run(const std::string& exe, const std::vector<std::string>& args) {
    static std::atomic<unsigned> counter{0};
    const unsigned k = counter++;
    const stdfs::path out = *dir_ / ("stdout." + std::to_string(k)), err = *dir_ / ("stderr." + std::to_string(k));
    std::string cmd = shell_quote(exe);
    for (const auto& a : args) cmd += " " + shell_quote(a);
    cmd += " > " + shell_quote(out.string()) + " 2> " + shell_quote(err.string());
    const int rc = std::system(cmd.c_str());
    outcome o;
#if !defined(_WIN32)
    if (WIFEXITED(rc)) o.status = WEXITSTATUS(rc);
    o.signaled = WIFSIGNALED(rc) || (WIFEXITED(rc) && WEXITSTATUS(rc) >= 128);
#else
    o.status = rc;
#endif
    o.out = read_file(out);
    o.err = read_file(err);
    stdfs::remove(out);
    stdfs::remove(err);
    return o;
  }
  static outcome tool(const std::vector<std::string>& args) { return run(FORKSCALE_REPORT_EXE, args); }

  // Exit status 2 and one line on stderr that begins with the tool's name and
  // contains `part`.
  static void expect_one_line_failure(const outcome& o, const std::string& part, const std::string& what) {
    EXPECT_FALSE(o.signaled) << what;
    EXPECT_EQ(o.status, 2) << what << "\nstderr: " << o.err;
    const auto l = lines(o.err);
    ASSERT_EQ(l.size(), 1u) << what << "\nstderr: " << o.err;
    EXPECT_EQ(l[0].rfind("forkscale-report: ", 0), 0u) << what << ": " << l[0];
    EXPECT_TRUE(contains(l[0], part)) << what << ": '" << l[0] << "' does not contain '" << part << "'";
    EXPECT_TRUE(o.out.empty()) << what;
  }

  static stdfs::path* dir_;
  static stdfs::path* before_;  // <stem> of the smaller run's .json/.csv/.txt
  static stdfs::path* after_;
  static stdfs::path* study_;
};

stdfs::path* Cli::dir_ = nullptr;
stdfs::path* Cli::before_ = nullptr;
stdfs::path* Cli::after_ = nullptr;
stdfs::path* Cli::study_ = nullptr;

bool python_available() { return std::system("python3 -c \"import xml.etree.ElementTree\" > /dev/null 2>&1") == 0; }

}  // namespace

TEST_F(Cli, ConvertGivesBackTheExamplesOwnFiles) {
  const std::string json = before_->string() + ".json";
  for (const char* ext : {"txt", "csv", "json"}) {
    const std::string to = std::string(ext) == "txt" ? "text" : ext;
    const outcome o = tool({"convert", json, "--to", to});
    EXPECT_EQ(o.status, 0) << o.err;
    EXPECT_TRUE(o.err.empty()) << o.err;
    EXPECT_EQ(o.out, read_file(before_->string() + "." + ext)) << ext;
  }
  // Text is the default; -o writes the same bytes to a file.
  EXPECT_EQ(tool({"convert", json}).out, read_file(before_->string() + ".txt"));
  const stdfs::path out = *dir_ / "converted.txt";
  EXPECT_EQ(tool({"convert", json, "-o", out.string()}).status, 0);
  EXPECT_EQ(read_file(out), read_file(before_->string() + ".txt"));
#ifdef FORKSCALE_FIB_EXE
  EXPECT_EQ(tool({"convert", (*dir_ / "fib" / "fib.json").string(), "--to=json"}).out,
            read_file(*dir_ / "fib" / "fib.json"));
#endif
}

TEST_F(Cli, ConvertToSvgHtmlAndGnuplot) {
  const std::string json = before_->string() + ".json";
  const stdfs::path svg = *dir_ / "bounds.svg", html = *dir_ / "report.html", gp = *dir_ / "bounds";
  EXPECT_EQ(tool({"convert", json, "--to", "svg", "-o", svg.string()}).status, 0);
  EXPECT_EQ(tool({"convert", json, "--to", "html", "-o", html.string()}).status, 0);
  EXPECT_EQ(tool({"convert", json, "--to", "gnuplot", "-o", gp.string()}).status, 0);
  EXPECT_TRUE(contains(read_file(svg), "data-series=\"span-law\""));
  EXPECT_TRUE(contains(read_file(html), "id=\"fs-summary\""));
  EXPECT_TRUE(contains(read_file(gp.string() + ".gp"), "plot 'bounds.dat'"));
  EXPECT_FALSE(read_file(gp.string() + ".dat").empty());
  if (!python_available()) GTEST_SKIP() << "python3 is not available: the XML checks are skipped";
  for (const auto& f : {svg, html})
    EXPECT_EQ(std::system(("python3 -c \"import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])\" " +
                           shell_quote(f.string()))
                              .c_str()),
              0)
        << f;
}

// --to gnuplot writes OUT.dat and OUT.gp: both or neither. With OUT.gp taken by
// a directory, OUT.dat keeps its old contents and no temporary is left.
TEST_F(Cli, GnuplotOutputIsWrittenWhollyOrNotAtAll) {
  const stdfs::path dir = *dir_ / "gnuplot_all_or_nothing";
  stdfs::create_directories(dir / "bounds.gp");
  write_file(dir / "bounds.dat", "old data\n");
  const outcome o = tool({"convert", before_->string() + ".json", "--to", "gnuplot", "-o", (dir / "bounds").string()});
  expect_one_line_failure(o, "cannot write report '" + (dir / "bounds.gp").string() + "'", "gp is a directory");
  EXPECT_TRUE(contains(o.err, "none of the 2 files was replaced")) << o.err;
  EXPECT_EQ(read_file(dir / "bounds.dat"), "old data\n");
  EXPECT_TRUE(stdfs::is_empty(dir / "bounds.gp"));
  std::vector<std::string> names;
  for (const auto& e : stdfs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"bounds.dat", "bounds.gp"}));
}

TEST_F(Cli, ConvertsAStudy) {
  const std::string s = study_->string();
  const outcome text = tool({"convert", s});
  EXPECT_EQ(text.status, 0) << text.err;
  EXPECT_TRUE(contains(text.out, "forkscale scaling study: fill"));
  EXPECT_TRUE(contains(text.out, "Factored speedups"));
  EXPECT_EQ(tool({"convert", s, "--to", "json"}).out, read_file(*study_));
  EXPECT_EQ(lines(tool({"convert", s, "--to", "csv"}).out).size(), 3u);
  EXPECT_TRUE(contains(tool({"convert", s, "--to", "svg"}).out, "id=\"fs-plot-factored\""));
  EXPECT_TRUE(contains(tool({"convert", s, "--to", "svg", "--plot", "scalability"}).out, "id=\"fs-plot-scalability\""));
  const outcome html = tool({"convert", s, "--to", "html"});
  EXPECT_TRUE(contains(html.out, "id=\"fs-study-runs\""));
  EXPECT_TRUE(contains(html.out, "id=\"fs-plot-factored\""));
  EXPECT_EQ(tool({"convert", s, "--to", "gnuplot", "--plot", "factored", "-o", (*dir_ / "f").string()}).status, 0);
  EXPECT_TRUE(contains(read_file(*dir_ / "f.gp"), "set label 'D'"));
  // A report has no factored plot.
  expect_one_line_failure(tool({"convert", before_->string() + ".json", "--to", "svg", "--plot", "factored"}),
                          "is a report, not a study", "factored plot of a report");
}

TEST_F(Cli, ComparesTwoReports) {
  const fs::report a = fs::read_report(before_->string() + ".json");
  const fs::report b = fs::read_report(after_->string() + ".json");
  const outcome o = tool({"compare", before_->string() + ".json", after_->string() + ".json"});
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_TRUE(o.err.empty());
  bool work = false, span = false, par = false;
  for (const auto& l : lines(o.out)) {
    namespace io = fs::detail::output;
    if (l.rfind("  Work ", 0) == 0) work = contains(l, io::grouped(a.work())) && contains(l, io::grouped(b.work()));
    if (l.rfind("  Span ", 0) == 0) span = contains(l, io::grouped(a.span())) && contains(l, io::grouped(b.span()));
    if (l.rfind("  Parallelism ", 0) == 0)
      par = contains(l, io::fixed(a.parallelism(), 2)) && contains(l, io::fixed(b.parallelism(), 2));
  }
  EXPECT_TRUE(work && span && par) << o.out;

  const outcome same = tool({"compare", before_->string() + ".json", before_->string() + ".json"});
  EXPECT_EQ(same.status, 0);
  for (const auto& l : lines(same.out)) {
    if (l.rfind("Call sites whose share", 0) == 0) break;  // the sites' section has its own test
    if (l.rfind("  ", 0) == 0 && !contains(l, "whole program") && !contains(l, "before:") && !contains(l, "after:")) {
      EXPECT_TRUE(contains(l, "0.0%")) << l;
    }
  }

  const outcome csv = tool({"compare", before_->string() + ".json", after_->string() + ".json", "--to", "csv"});
  EXPECT_EQ(csv.status, 0);
  const auto rows = lines(csv.out);
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(rows[0], "path,metric,before,after,ratio,unit");
  EXPECT_EQ(rows.size(), 1 + 9 * a.regions.size());
  EXPECT_TRUE(
      contains(csv.out, "quicksort,work," + std::to_string(a.work()) + ".0," + std::to_string(b.work()) + ".0,") ||
      !contains(a.label, "quicksort"))
      << csv.out;

  // A study is not a report; reports in different units are not comparable.
  expect_one_line_failure(tool({"compare", before_->string() + ".json", study_->string()}),
                          "is a scaling study; compare takes two reports", "study in compare");
  fs::report ns = a;
  ns.unit = "ns";
  ns.clock = fs::clock_kind::steady;
  const stdfs::path ns_file = *dir_ / "ns.json";
  ns.write_json(ns_file.string());
  expect_one_line_failure(tool({"compare", before_->string() + ".json", ns_file.string()}), "the units differ",
                          "different units");
}

// compare --fail-if: the smaller input (before_) has the lower parallelism, so
// comparing after_ (the baseline here) with before_ is a drop; the thresholds
// are set from the two reports' own numbers.
TEST_F(Cli, CompareFailIfIsARegressionGate) {
  namespace io = fs::detail::output;
  const std::string base = after_->string() + ".json", now = before_->string() + ".json";
  const fs::report a = fs::read_report(base), b = fs::read_report(now);
  const double drop = 100 * (a.parallelism() - b.parallelism()) / a.parallelism();
  ASSERT_GT(drop, 1.0) << a.parallelism() << " -> " << b.parallelism();
  const std::string beyond = "parallelism<-" + io::fixed(drop / 2, 2) + "%";
  const std::string within = "parallelism<-" + io::fixed(drop * 2, 2) + "%";

  const outcome ok = tool({"compare", base, now, "--fail-if", within});
  EXPECT_EQ(ok.status, 0) << ok.err;
  EXPECT_TRUE(ok.err.empty()) << ok.err;
  EXPECT_TRUE(contains(ok.out, "  Parallelism ")) << ok.out;

  const outcome bad = tool({"compare", base, now, "--fail-if", within, "--fail-if=" + beyond});
  EXPECT_EQ(bad.status, 1) << bad.err;
  EXPECT_TRUE(contains(bad.out, "  Parallelism ")) << bad.out;  // the comparison as without --fail-if
  ASSERT_EQ(lines(bad.err).size(), 1u) << bad.err;
  EXPECT_EQ(lines(bad.err)[0], "forkscale-report: regression: parallelism of '" + a.label +
                                   "': " + io::fixed(a.parallelism(), 2) + " before, " + io::fixed(b.parallelism(), 2) +
                                   " after, -" + io::fixed(drop, 1) + "% (rule " + beyond + ")");

  const outcome gh = tool({"compare", base, now, "--fail-if", beyond, "--to", "github"});
  EXPECT_EQ(gh.status, 1);
  EXPECT_TRUE(gh.err.empty()) << gh.err;
  const auto out = lines(gh.out);
  ASSERT_FALSE(out.empty());
  EXPECT_EQ(out.back(), "::error title=forkscale regression%3A parallelism of " + a.label + "::parallelism of '" +
                            a.label + "': " + io::fixed(a.parallelism(), 2) + " before, " +
                            io::fixed(b.parallelism(), 2) + " after, -" + io::fixed(drop, 1) + "%25 (rule " +
                            beyond.substr(0, beyond.size() - 1) + "%25)");
  EXPECT_TRUE(contains(gh.out, "  Parallelism ")) << gh.out;

  // Without --fail-if, and with rules that hold, exit status 0; --to github alone is the text.
  EXPECT_EQ(tool({"compare", base, now}).status, 0);
  EXPECT_EQ(tool({"compare", base, now, "--to", "github"}).out, tool({"compare", base, now}).out);
  EXPECT_EQ(tool({"compare", base, now, "--fail-if", "region=*:work>+0%", "--to", "csv"}).status, 0);

  // A bad rule, or one that names a region in neither report: exit status 2, one line.
  expect_one_line_failure(tool({"compare", base, now, "--fail-if", "parallelism<-10"}),
                          "bad regression rule 'parallelism<-10': the threshold must be a percentage",
                          "a threshold without %");
  expect_one_line_failure(tool({"compare", base, now, "--fail-if", "speed<-10%"}),
                          "unknown metric 'speed' (expected work, span, burdened_span, parallelism,",
                          "an unknown metric");
  expect_one_line_failure(tool({"compare", base, now, "--fail-if", "region=nowhere:span>+5%"}),
                          "no region 'nowhere' in either report", "a region in neither report");
}

namespace {

// A report of `span` units whose call sites have these local spans on span
// (the first is the root's, and they add up to `span`); names are tags when
// `tag` is set, else file:line.
struct site_spec {
  const char* tag;
  const char* file;
  unsigned line;
  const char* function;
  std::int64_t local_span;
};

fs::report sites_report(const char* label, std::uint64_t span, const std::vector<site_spec>& sites) {
  fs::report rep;
  rep.label = label;
  fs::region_result root;
  root.label = root.path = label;
  root.instances = 1;
  root.work = 10 * span;
  root.span = root.raw_span = span;
  root.raw_work = root.work;
  root.burdened_span = span + 100;
  rep.regions.push_back(root);
  for (const site_spec& s : sites) {
    fs::call_site_profile c;
    c.kind = rep.call_sites.empty() ? fs::site_kind::root : fs::site_kind::call;
    c.tag = s.tag;
    c.file = s.file;
    c.line = s.line;
    c.function = s.function;
    c.name = *s.tag ? s.tag : std::string(s.file) + ":" + std::to_string(s.line);
    c.local_on_span.count = 1;
    c.local_on_span.work = 3;
    c.local_on_span.span = s.local_span;
    c.local_on_work = c.local_on_span;
    c.local_on_work.work = 10 * static_cast<std::uint64_t>(s.local_span);  // the self-checks hold
    c.top_call_site_on_work = c.local_on_work;
    rep.call_sites.push_back(c);
    fs::spawn_site_profile p;
    p.name = c.name;
    p.kind = c.kind == fs::site_kind::root ? fs::site_kind::root : fs::site_kind::spawn;
    p.function = s.function;
    p.tasks = 2;
    p.work = 8;
    p.span = 4;
    p.critical_span = s.local_span;
    p.exclusive_work = c.local_on_work.work;
    p.critical_percent = 100.0 * static_cast<double>(s.local_span) / static_cast<double>(span);
    rep.spawn_sites.push_back(p);
  }
  return rep;
}

}  // namespace

TEST_F(Cli, ConvertWritesTheSiteProfilesAsCsv) {
  const fs::report rep = sites_report(
      "sites", 1000, {{"", "", 0, "", 100}, {"=alpha, \"a\"", "a.cpp", 10, "f", 500}, {"", "dir/b.cpp", 20, "g", 400}});
  const stdfs::path json = *dir_ / "sites.json";
  rep.write_json(json.string());
  const outcome calls = tool({"convert", json.string(), "--to", "calls-csv"});
  EXPECT_EQ(calls.status, 0) << calls.err;
  EXPECT_TRUE(calls.err.empty()) << calls.err;
  EXPECT_EQ(calls.out, rep.call_sites_csv());
  EXPECT_EQ(lines(calls.out).size(), 4u) << calls.out;
  EXPECT_TRUE(contains(calls.out, "\n\"'=alpha, \"\"a\"\"\",call,a.cpp,10,f,")) << calls.out;
  const outcome spawns = tool({"convert", json.string(), "--to=spawns-csv"});
  EXPECT_EQ(spawns.status, 0) << spawns.err;
  EXPECT_EQ(spawns.out, rep.spawn_sites_csv());
  const stdfs::path out = *dir_ / "calls.csv";
  EXPECT_EQ(tool({"convert", json.string(), "--to", "calls-csv", "-o", out.string()}).status, 0);
  EXPECT_EQ(read_file(out), rep.call_sites_csv());
  // The text conversion shows the tables.
  const outcome text = tool({"convert", json.string()});
  EXPECT_TRUE(contains(text.out, "\n3) Call sites (by local span on span")) << text.out;
  EXPECT_TRUE(contains(text.out, "\n4) Spawn sites (by critical span")) << text.out;

  // A study's site profiles are its profile run's; a report without them gives the header only.
  const fs::study_result study = fs::read_study(study_->string());
  const outcome s = tool({"convert", study_->string(), "--to", "calls-csv"});
  EXPECT_EQ(s.status, 0) << s.err;
  EXPECT_EQ(s.out, study.profile.call_sites_csv());
  EXPECT_EQ(tool({"convert", study_->string(), "--to", "spawns-csv"}).out, study.profile.spawn_sites_csv());
  fs::report none = rep;
  none.call_sites.clear();
  none.spawn_sites.clear();
  const stdfs::path none_json = *dir_ / "none.json";
  none.write_json(none_json.string());
  EXPECT_EQ(lines(tool({"convert", none_json.string(), "--to", "calls-csv"}).out),
            std::vector<std::string>{lines(rep.call_sites_csv())[0]});
  // Unwritable output: one line, nothing left behind.
  expect_one_line_failure(
      tool({"convert", json.string(), "--to", "spawns-csv", "-o", (*dir_ / "no" / "such" / "s.csv").string()}),
      "cannot write", "unwritable site CSV");
  EXPECT_FALSE(stdfs::exists(*dir_ / "no"));
}

// A cost-clock measurement with what-if regions: `serial` units of serial work
// (the region "serial, \"s\""), then two tasks of 20 units, one of them the
// region "task".
fs::report what_if_run(std::uint64_t serial) {
  fs::options o;
  o.clock = fs::clock_kind::cost;
  o.what_if.read_environment = false;
  o.what_if.factors = {2, std::numeric_limits<double>::infinity()};
  o.what_if.call_sites = {"never_here.cpp:1"};
  return fs::measure(
      "what if",
      [serial] {
        {
          fs::what_if_region g("serial, \"s\"");
          fs::charge(serial);
        }
        fs::spawn([] { fs::charge(20); })();
        {
          fs::what_if_region g("task");
          fs::charge(20);
        }
        fs::sync_point sp;
      },
      o);
}

TEST_F(Cli, ConvertWritesWhatIfCsvAndCompareListsWhatIfChanges) {
  const fs::report before = what_if_run(60), after = what_if_run(20);
  ASSERT_FALSE(before.what_if.empty());
  const stdfs::path a = *dir_ / "what_if_a.json", b = *dir_ / "what_if_b.json";
  before.write_json(a.string());
  after.write_json(b.string());
  const outcome csv = tool({"convert", a.string(), "--to", "whatif-csv"});
  EXPECT_EQ(csv.status, 0) << csv.err;
  EXPECT_TRUE(csv.err.empty()) << csv.err;
  EXPECT_EQ(csv.out, before.what_if_csv());
  EXPECT_EQ(lines(csv.out).size(), 1u + before.what_if.size());
  EXPECT_TRUE(contains(csv.out, "\n\"serial, \"\"s\"\"\",region,")) << csv.out;
  EXPECT_TRUE(contains(csv.out, "\nnever_here.cpp:1,call_site,")) << csv.out;
  const stdfs::path out = *dir_ / "what_if.csv";
  EXPECT_EQ(tool({"convert", a.string(), "--to=whatif-csv", "-o", out.string()}).status, 0);
  EXPECT_EQ(read_file(out), before.what_if_csv());
  const outcome text = tool({"convert", a.string()});
  EXPECT_TRUE(contains(text.out, ") What if a region ran k times faster (times in units)\n")) << text.out;
  EXPECT_TRUE(contains(text.out, "  never_here.cpp:1")) << text.out;
  // A study without what-if rows gives the header only.
  const outcome s = tool({"convert", study_->string(), "--to", "whatif-csv"});
  EXPECT_EQ(s.status, 0) << s.err;
  EXPECT_EQ(lines(s.out), std::vector<std::string>{lines(before.what_if_csv())[0]});

  // serial 60 -> 20: the span is 80 -> 40, the work 100 -> 60. At inf,
  // parallelized: serial's parallelism 100 / 20 = 5 -> 60 / 20 = 3; task's
  // 100 / 80 = 1.25 -> 60 / 40 = 1.5 (task's continuation is now on the path:
  // max(20, 20) stays 40 at inf). The largest change comes first.
  const outcome cmp = tool({"compare", a.string(), b.string()});
  EXPECT_EQ(cmp.status, 0) << cmp.err;
  const std::string& t = cmp.out;
  const std::size_t at = t.find("\nWhat-if regions whose predicted parallelism changed most");
  ASSERT_NE(at, std::string::npos) << t;
  const std::string section = t.substr(at);
  EXPECT_TRUE(contains(section,
                       "\n  region           k  before  after           change\n"
                       "  (all regions)  inf    5.00   3.00  -40.0% (0.600x)\n"
                       "  serial, \"s\"    inf    5.00   3.00  -40.0% (0.600x)\n"
                       "  task           inf    1.25   1.50  +20.0% (1.200x)\n"))
      << section;
  EXPECT_EQ(section.find("never_here"), std::string::npos) << section;  // never ran: nothing to compare
  // Without what-if rows on one side, no section.
  fs::report plain = before;
  plain.what_if.clear();
  const stdfs::path c = *dir_ / "what_if_none.json";
  plain.write_json(c.string());
  const outcome none = tool({"compare", c.string(), a.string()});
  EXPECT_EQ(none.status, 0) << none.err;
  EXPECT_FALSE(contains(none.out, "What-if regions")) << none.out;
}

TEST_F(Cli, CompareShowsTheSitesWhoseSpanShareMovedMost) {
  const fs::report a = sites_report("sites", 1000,
                                    {{"", "", 0, "", 100},
                                     {"alpha", "a.cpp", 10, "f", 500},
                                     {"", "b.cpp", 20, "g", 200},
                                     {"charlie", "c.cpp", 30, "h", 100},
                                     {"delta", "c.cpp", 40, "h", 100}});
  // charlie moved to another line but keeps its tag: the same site.
  const fs::report b = sites_report("sites", 2000,
                                    {{"", "", 0, "", 200},
                                     {"alpha", "a.cpp", 10, "f", 400},
                                     {"", "b.cpp", 20, "g", 1000},
                                     {"charlie", "c.cpp", 31, "h", 100},
                                     {"echo", "c.cpp", 50, "h", 300}});
  ASSERT_EQ(a.check_profile(), "");
  ASSERT_EQ(b.check_profile(), "");
  const stdfs::path pa = *dir_ / "sites_before.json", pb = *dir_ / "sites_after.json";
  a.write_json(pa.string());
  b.write_json(pb.string());
  const outcome o = tool({"compare", pa.string(), pb.string()});
  ASSERT_EQ(o.status, 0) << o.err;
  const std::string section =
      "\nCall sites whose share of the span moved most (local span on span, % of the span)\n"
      "  call site      before  after    change\n"
      "  alpha in f       50.0   20.0  -30.0 pp\n"
      "  b.cpp:20 in g    20.0   50.0  +30.0 pp\n"
      "  echo in h           -   15.0  +15.0 pp      new\n"
      "  delta in h       10.0      -  -10.0 pp  removed\n"
      "  charlie in h     10.0    5.0   -5.0 pp\n"
      "  pp = percentage points of the span; new, removed: in one report only\n";
  EXPECT_TRUE(contains(o.out, section)) << o.out;
  EXPECT_FALSE(contains(o.out, "(root)")) << "the root's share did not move\n" << o.out;
  // The CSV form has the root region's rows only, no site rows.
  const outcome csv = tool({"compare", pa.string(), pb.string(), "--to", "csv"});
  EXPECT_EQ(lines(csv.out).size(), 1u + 9u) << csv.out;

  // The ten largest changes, and how many more moved.
  std::vector<site_spec> many = {{"", "", 0, "", 0}};
  static const char* const names[] = {"s00", "s01", "s02", "s03", "s04", "s05", "s06",
                                      "s07", "s08", "s09", "s10", "s11", "s12"};
  for (int i = 0; i < 13; ++i) many.push_back({names[i], "m.cpp", static_cast<unsigned>(i), "m", 100 + i});
  std::int64_t rest = 0;
  for (const auto& s : many) rest += s.local_span;
  const fs::report m = sites_report("many", static_cast<std::uint64_t>(rest), many);
  const stdfs::path pm = *dir_ / "sites_many.json";
  m.write_json(pm.string());
  const fs::report only_root = sites_report("root", 1000, {{"", "", 0, "", 1000}});
  const stdfs::path pr = *dir_ / "sites_root.json";
  only_root.write_json(pr.string());
  const outcome mo = tool({"compare", pr.string(), pm.string()});
  ASSERT_EQ(mo.status, 0) << mo.err;
  const auto ml = lines(mo.out);
  const auto head = std::find(ml.begin(), ml.end(),
                              "Call sites whose share of the span moved most (local span on span, % of the span)");
  ASSERT_NE(head, ml.end()) << mo.out;
  ASSERT_GE(ml.end() - head, 14) << mo.out;
  EXPECT_EQ(head[2].rfind("  (root)  ", 0), 0u) << mo.out;    // 100% -> 0%
  EXPECT_EQ(head[3].rfind("  s12 in m  ", 0), 0u) << mo.out;  // the largest new share
  EXPECT_TRUE(contains(head[3], "new")) << head[3];
  EXPECT_EQ(head[11].rfind("  s04 in m  ", 0), 0u) << mo.out;  // the tenth
  EXPECT_EQ(head[12], "  (4 more sites moved)") << mo.out;

  // Nothing moved; one side without a profile.
  EXPECT_TRUE(contains(tool({"compare", pa.string(), pa.string()}).out,
                       "most (local span on span, % of the span)\n  (no call site's share of the span changed)\n"));
  fs::report plain = a;
  plain.call_sites.clear();
  const stdfs::path pp = *dir_ / "sites_plain.json";
  plain.write_json(pp.string());
  EXPECT_TRUE(contains(tool({"compare", pp.string(), pa.string()}).out, "\n  (before has no site profile)\n"));
  EXPECT_FALSE(contains(tool({"compare", pp.string(), pp.string()}).out, "Call sites whose share"));
}

namespace {

// The sum of the counts of a folded-stack file ("stack count" lines).
std::uint64_t folded_total(const std::string& text) {
  std::uint64_t sum = 0;
  for (const auto& l : lines(text)) {
    const std::size_t space = l.rfind(' ');
    if (space == std::string::npos) return ~std::uint64_t(0);
    sum += std::stoull(l.substr(space + 1));
  }
  return sum;
}

}  // namespace

// A report measured with recording on (the quicksort example with
// FORKSCALE_RECORD=1, as a user would) converts to its trace and folded stacks;
// one without a record is refused in one line.
TEST_F(Cli, ConvertWritesTheRecordsViews) {
  const stdfs::path dir = *dir_ / "recorded";
#ifdef FORKSCALE_QUICKSORT_EXE
  ::setenv("FORKSCALE_RECORD", "1", 1);
  const outcome made = run(FORKSCALE_QUICKSORT_EXE, {"20000", "--clock", "cost", "--out", dir.string()});
  ::unsetenv("FORKSCALE_RECORD");
  ASSERT_EQ(made.status, 0) << made.err;
  const std::string json = (dir / "quicksort.json").string();
#else
  fs::options opt;
  opt.clock = fs::clock_kind::cost;
  opt.record = true;
  stdfs::create_directories(dir);
  const std::string json = (dir / "fib.json").string();
  fs::measure(
      "fib", [] { fib(12); }, opt)
      .write_json(json);
#endif
  const fs::report rep = fs::read_report(json);
  ASSERT_TRUE(rep.record);
  const outcome work = tool({"convert", json, "--to", "folded-work"});
  const outcome critical = tool({"convert", json, "--to", "folded-critical"});
  const outcome trace = tool({"convert", json, "--to", "trace"});
  for (const outcome* o : {&work, &critical, &trace}) EXPECT_EQ(o->status, 0) << o->err;
  EXPECT_EQ(folded_total(work.out), rep.work());
  EXPECT_EQ(folded_total(critical.out), rep.span());
  fs::detail::json::limits lim;
  lim.max_bytes = std::size_t(1) << 30;
  lim.max_values = 100'000'000;
  const fs::detail::json::value v = fs::detail::json::parse(trace.out, lim);
  ASSERT_TRUE(v.find("traceEvents") != nullptr);
  EXPECT_GT(v.find("traceEvents")->items.size(), rep.record->strands.size());
  EXPECT_EQ(trace.out, rep.to_trace());
  const stdfs::path out = dir / "run.trace.json";
  EXPECT_EQ(tool({"convert", json, "--to", "trace", "-o", out.string()}).status, 0);
  EXPECT_EQ(read_file(out), trace.out);
  // Without a record, in one line; a study's views are its profile run's.
  for (const std::string& f : {before_->string() + ".json", study_->string()})
    for (const char* to : {"trace", "folded-work", "folded-critical"})
      expect_one_line_failure(tool({"convert", f, "--to", to}),
                              "has no record: measure with options.record = true or FORKSCALE_RECORD=1",
                              std::string("--to ") + to + " of " + f);
}

TEST_F(Cli, BadFilesGiveOneLineAndExitStatusTwo) {
  const std::string good = read_file(before_->string() + ".json");
  struct bad {
    const char* name;
    std::string contents;
    const char* message;
  };
  std::string flipped = good;
  flipped[flipped.find("\"work\"") + 2] = 'X';  // a key no longer there
  std::string digit = good;
  digit[digit.find("\"span\": ") + 8] = digit[digit.find("\"span\": ") + 8] == '9' ? '8' : '9';
  const std::vector<bad> cases = {
      {"empty.json", "", "byte 0: the input is empty"},
      // Cut at a line break (never inside a string) about half way.
      {"truncated.json", good.substr(0, good.rfind('\n', good.size() / 2)), "unexpected end of input"},
      {"flipped.json", flipped, "missing key 'work'"},
      {"digit.json", digit, "(the file is inconsistent)"},
      {"schema.json", "{\"schema\": \"something.else\", \"schema_version\": 1}",
       "not a forkscale report or study (its schema is 'something.else')"},
      {"noschema.json", "{\"label\": \"x\"}", "not a forkscale.report document (no \"schema\" key)"},
      {"array.json", "[1, 2, 3]", "top level: expected an object, found an array"},
      {"version.json",
       good.substr(0, good.find("\"schema_version\": 1")) + "\"schema_version\": 7" +
           good.substr(good.find("\"schema_version\": 1") + 19),
       "schema_version 7 is newer than this reader understands (1)"},
      {"binary.json",
       std::string("\x7f"
                   "ELF\x02\x01\x01\0\0\0",
                   10),
       "expected a JSON value"},
      {"bom.json", "\xEF\xBB\xBF" + good, "a byte order mark is not allowed"},
      {"deep.json", std::string(5000, '['), "nested more than 64 deep"},
      {"trailing.json", good + "}", "after the JSON value"},
      {"newline\nname.json", "nope", "expected a JSON value"},
  };
  for (const auto& c : cases) {
    const stdfs::path p = *dir_ / c.name;
    write_file(p, c.contents);
    const outcome o = tool({"convert", p.string()});
    expect_one_line_failure(o, c.message, c.name);
    // The file is named (control characters escaped, so the line stays one line).
    EXPECT_TRUE(contains(o.err, "cannot read '" + fs::detail::printable_path(p.string()) + "'")) << o.err;
    const outcome cmp = tool({"compare", before_->string() + ".json", p.string()});
    expect_one_line_failure(cmp, fs::detail::printable_path(p.string()), std::string("compare ") + c.name);
  }
  expect_one_line_failure(tool({"convert", (*dir_ / "missing.json").string()}), "No such file or directory", "missing");
  expect_one_line_failure(tool({"convert", dir_->string()}), "it is a directory", "directory");
  expect_one_line_failure(
      tool({"convert", before_->string() + ".json", "-o", (*dir_ / "no" / "such" / "dir.txt").string()}),
      "cannot write", "unwritable output");
}

TEST_F(Cli, BadUsageGivesOneLineAndExitStatusTwo) {
  const std::string in = before_->string() + ".json";
  const std::vector<std::vector<std::string>> cases = {
      {},
      {"frobnicate"},
      {"convert"},
      {"convert", in, in},
      {"convert", in, "--to"},
      {"convert", in, "--to", "pdf"},
      {"convert", in, "--to", "gnuplot"},
      {"convert", in, "--plot", "pie", "--to", "svg"},
      {"convert", in, "--plot", "factored"},
      {"convert", in, "--to", "text", "--to", "csv"},
      {"convert", in, "--bogus"},
      {"convert", in, "-o", ""},
      {"compare", in},
      {"compare", in, in, in},
      {"compare", in, in, "--to", "html"},
      {"compare", in, in, "--to", "calls-csv"},
      {"convert", in, "--to", "calls-csv", "--plot", "factored"},
      {"convert", in, "--fail-if", "span>+5%"},
      {"compare", in, in, "--fail-if"},
  };
  for (const auto& args : cases) {
    std::string what = "forkscale-report";
    for (const auto& a : args) what += " " + a;
    expect_one_line_failure(tool(args), "(try --help)", what);
  }
  const outcome help = tool({"--help"});
  EXPECT_EQ(help.status, 0);
  EXPECT_TRUE(contains(help.out, "usage: forkscale-report convert"));
  EXPECT_TRUE(contains(help.out, "|calls-csv|spawns-csv|whatif-csv|")) << help.out;
  EXPECT_TRUE(contains(help.out, "trace|folded-work|folded-critical]")) << help.out;
  EXPECT_EQ(tool({"--version"}).out, "forkscale-report (forkscale " FORKSCALE_VERSION_STRING ")\n");
}

namespace {

std::vector<std::string> mutations(const std::string& seed, unsigned count, std::uint64_t rng_seed) {
  std::mt19937_64 rng(rng_seed);
  const auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % (n ? n : 1)); };
  static const char* const tokens[] = {
      "{", "}", "[", "]", "\"", ",", ":", "\\", "\\ud800", "-", "1e999", "null", "\xFF", "18446744073709551616", " "};
  std::vector<std::string> out;
  for (unsigned i = 0; i < count; ++i) {
    std::string t = seed;
    for (unsigned e = 0, edits = 1 + static_cast<unsigned>(rng() % 3); e < edits && !t.empty(); ++e) {
      switch (rng() % 6) {
        case 0:
          t[pick(t.size())] ^= static_cast<char>(1u << (rng() % 8));
          break;
        case 1:
          t.resize(pick(t.size()));
          break;
        case 2:
          t.insert(pick(t.size() + 1), tokens[pick(sizeof tokens / sizeof tokens[0])]);
          break;
        case 3:
          t.erase(pick(t.size()), 1 + pick(16));
          break;
        case 4: {
          const std::string span = t.substr(pick(t.size()), 1 + pick(64));
          t.insert(pick(t.size() + 1), span);
          break;
        }
        default: {
          const std::size_t at = t.find_first_of("0123456789", pick(t.size()));
          if (at != std::string::npos) t[at] = static_cast<char>('0' + rng() % 10);
        }
      }
    }
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace

TEST_F(Cli, FuzzMutatedReportsInProcess) {
  const std::string seeds[] = {read_file(before_->string() + ".json"), read_file(*study_)};
  int ok = 0, refused = 0;
  unsigned k = 0;
  for (int s = 0; s < 2; ++s) {
    for (const std::string& m : mutations(seeds[s], s == 0 ? 3000 : 1500, 4242 + s)) {
      // A new file each time: rewriting one file in place makes some file systems
      // (ext4's auto_da_alloc) flush it to disk on every close.
      const stdfs::path p = *dir_ / ("mutant-" + std::to_string(k++) + ".json");
      write_file(p, m);
      struct remover {
        stdfs::path p;
        ~remover() { stdfs::remove(p); }
      } remove_later{p};
      for (const char* to : {"text", "html"}) {
        std::ostringstream out, err;
        const int rc = forkscale_cli::run({"convert", p.string(), "--to", to}, out, err);
        if (rc == 0) {
          ++ok;
          ASSERT_TRUE(err.str().empty()) << err.str();
          continue;
        }
        ++refused;
        ASSERT_EQ(rc, 2);
        const auto l = lines(err.str());
        ASSERT_EQ(l.size(), 1u) << err.str();
        ASSERT_EQ(l[0].rfind("forkscale-report: cannot read '" + p.string() + "': byte ", 0), 0u) << l[0];
        ASSERT_TRUE(out.str().empty());
      }
    }
  }
  EXPECT_GT(refused, 7000);
  EXPECT_GT(ok, 20);
}

TEST_F(Cli, FuzzMutatedReportsThroughTheExecutable) {
  const std::string seed = read_file(before_->string() + ".json");
  int ok = 0, refused = 0;
  unsigned k = 0;
  for (const std::string& m : mutations(seed, 1000, 99)) {
    const stdfs::path p = *dir_ / ("exe-mutant-" + std::to_string(k++) + ".json");
    write_file(p, m);
    struct remover {
      stdfs::path p;
      ~remover() { stdfs::remove(p); }
    } remove_later{p};
    const outcome o = tool({"convert", p.string(), "--to", "csv"});
    ASSERT_FALSE(o.signaled) << "crashed on mutant " << k;
    if (o.status == 0) {
      ++ok;
      continue;
    }
    ++refused;
    ASSERT_EQ(o.status, 2) << o.err;
    ASSERT_EQ(lines(o.err).size(), 1u) << o.err;
    ASSERT_TRUE(contains(o.err, "cannot read '" + p.string() + "'")) << o.err;
  }
  EXPECT_GT(refused, 800);
}

// ---- predict and calibrate (cli_predict.hpp) -------------------------------------

TEST(CliProcessors, ListsRangesAndEllipses) {
  using forkscale_cli::parse_processors;
  const std::vector<unsigned> doubling{1, 2, 4, 8, 16, 32, 64, 128, 256};
  EXPECT_EQ(parse_processors("1,2,4,8,...,256"), doubling);
  EXPECT_EQ(parse_processors("1-256"), doubling);
  EXPECT_EQ(parse_processors("1,2,...,256"), doubling);
  EXPECT_EQ(parse_processors("2,4,6,...,12"), (std::vector<unsigned>{2, 4, 6, 8, 10, 12}));
  EXPECT_EQ(parse_processors("3,5,...,9"), (std::vector<unsigned>{3, 5, 7, 9}));
  EXPECT_EQ(parse_processors("1-6"), (std::vector<unsigned>{1, 2, 4, 6}));
  EXPECT_EQ(parse_processors("4,1,4,2"), (std::vector<unsigned>{4, 1, 2}));  // as given, each once
  EXPECT_EQ(parse_processors("1,3-12,64"), (std::vector<unsigned>{1, 3, 6, 12, 64}));
  for (const char* bad : {"", "0", "a", "1,,2", "8-2", "...,4", "1,2,...", "1,3,4,...,10", "1-", "-4", "70000",
                          "2,1,...,8", "1,2,...,..."}) {
    try {
      parse_processors(bad);
      ADD_FAILURE() << "'" << bad << "' was accepted";
    } catch (const forkscale_cli::failure& f) {
      EXPECT_EQ(f.message.rfind("forkscale-report: --processors", 0), 0u) << f.message;
      EXPECT_EQ(f.message.find('\n'), std::string::npos);
    }
  }
}

TEST_F(Cli, PredictReplaysTheRecord) {
  fs::options o;
  o.clock = fs::clock_kind::cost;
  o.burden = 3;
  o.record = true;
  const fs::report rep = fs::measure(
      "fib", [] { fib(12); }, o);
  const std::string path = (*dir_ / "recorded.json").string();
  rep.write_json(path);
  if (!fs::read_report(path).record) {
    std::cout << "SKIPPED: the JSON reader does not read the record yet\n";
    GTEST_SKIP() << "SKIPPED: the JSON reader does not read the record yet";
  }
  // The tool reads the file back and replays it as the library does in-process.
  fs::replay_model m;
  m.seeds = 3;
  const outcome t = tool({"predict", path, "--processors", "1,2,4,...,16", "--seeds", "3"});
  EXPECT_EQ(t.status, 0) << t.err;
  EXPECT_EQ(t.out, fs::predict(rep, {1, 2, 4, 8, 16}, m).to_text());
  m.steal_cost = 7;
  m.spawn_cost = 1;
  m.steal_attempt_cost = 2;
  const outcome j = tool({"predict", path, "--processors=2-8", "--to", "json", "--steal-cost", "7", "--spawn-cost=1",
                          "--attempt-cost", "2", "--seeds", "3"});
  EXPECT_EQ(j.status, 0) << j.err;
  EXPECT_EQ(j.out, fs::predict(rep, {2, 4, 8}, m).to_json());
  const std::string out = (*dir_ / "prediction.json").string();
  EXPECT_EQ(tool({"predict", path, "--to", "json", "-o", out}).status, 0);
  EXPECT_EQ(read_file(out), fs::predict(rep, {1, 2, 4, 8, 16, 32, 64, 128, 256}).to_json());
  // --model chooses the scheduler; --thread-start-cost the OS-thread replay's start.
  fs::replay_model threads;
  threads.scheduler = fs::replay_scheduler::os_threads;
  threads.thread_start_cost = 4;
  const outcome os =
      tool({"predict", path, "--processors", "1,2", "--model", "os-threads", "--thread-start-cost", "4"});
  EXPECT_EQ(os.status, 0) << os.err;
  EXPECT_EQ(os.out, fs::predict(rep, {1, 2}, threads).to_text());
  EXPECT_NE(os.out.find("Scheduler: OS threads"), std::string::npos) << os.out;
  // --core-wake-cost: the sleeping cores' wake.
  threads.core_wake_cost = 6;
  const outcome wake = tool({"predict", path, "--processors", "1,2", "--model", "os-threads", "--thread-start-cost",
                             "4", "--core-wake-cost", "6", "--to", "json"});
  EXPECT_EQ(wake.status, 0) << wake.err;
  EXPECT_EQ(wake.out, fs::predict(rep, {1, 2}, threads).to_json());
  EXPECT_NE(wake.out.find("\"core_wake_cost\": 6"), std::string::npos) << wake.out;
  const outcome ws = tool({"predict", path, "--processors", "2", "--model=work-stealing", "--seeds", "3"});
  EXPECT_EQ(ws.status, 0) << ws.err;
  EXPECT_NE(ws.out.find("Scheduler: work stealing"), std::string::npos) << ws.out;
}

TEST_F(Cli, PredictRefusesBadUsageAndReportsWithoutARecord) {
  const std::string in = before_->string() + ".json";
  const std::vector<std::vector<std::string>> usage = {
      {"predict"},
      {"predict", in, in},
      {"predict", in, "--to", "html"},
      {"predict", in, "--seeds", "0"},
      {"predict", in, "--seeds", "x"},
      {"predict", in, "--steal-cost", "abc"},
      {"predict", in, "--spawn-cost", "-1"},
      {"predict", in, "--steal-cost", "-5"},
      {"predict", in, "--attempt-cost=1e30"},
      {"predict", in, "--thread-start-cost", "-0.5"},
      {"predict", in, "--processors", "0"},
      {"predict", in, "--processors"},
      {"predict", in, "--frobnicate", "1"},
      {"predict", in, "--model", "cilk"},
      {"predict", in, "--thread-start-cost", "soon"},
      {"predict", in, "--core-wake-cost", "-2"},
      {"calibrate", "--backend", "cilk"},
      {"calibrate", "extra"},
      {"calibrate", "--file", ""},
      {"calibrate", "--bogus", "1"},
      {"calibrate", "--force", "extra"},
  };
  for (const auto& args : usage) {
    std::string what = "forkscale-report";
    for (const auto& a : args) what += " " + a;
    expect_one_line_failure(tool(args), "(try --help)", what);
  }
  // The examples' reports are not recorded: nothing to replay.
  expect_one_line_failure(tool({"predict", in}), "has no record to replay", "predict without a record");
  expect_one_line_failure(tool({"predict", (*dir_ / "missing.json").string()}), "cannot read", "predict, no file");
}

// calibrate on a busy machine, with the micro-benchmark and the pause
// replaced: figures that say "busy" (other processes' threads on every
// hardware thread, or a median steal far above its lower decile) are tried
// again, a pause apart, and never stored without --force.
fs::measured_burden figures(double steal, double median, unsigned runnable_elsewhere) {
  fs::measured_burden m;
  m.backend = fs::backend::std_thread;
  m.spawn_ns = 1000;
  m.steal_ns = steal;
  m.steal_median_ns = median;
  m.rounds = 400;
  m.cpu_model = fs::this_machine().cpu_model;
  m.hardware_threads = 2;
  m.runnable_elsewhere = runnable_elsewhere;
  m.measured_at = "2024-01-01T00:00:00Z";
  return m;
}

struct scripted_calibration {
  std::vector<fs::measured_burden> results;  // one per attempt, in order
  unsigned calls = 0, pauses = 0;
  forkscale_cli::calibration_runner runner() {
    forkscale_cli::calibration_runner r;
    r.calibrate = [this](fs::backend) { return results.at(calls++); };
    r.pause = [this] { ++pauses; };
    return r;
  }
};

TEST_F(Cli, CalibrateRetriesABusyMachineAndStoresNothingWithoutForce) {
  const std::string file = (*dir_ / "busy" / "burden.json").string();
  scripted_calibration busy{{figures(2e6, 7.5e6, 0), figures(50000, 60000, 2), figures(3e6, 9e6, 0)}};
  std::ostringstream out, err;
  EXPECT_EQ(forkscale_cli::calibrate_command({"calibrate", "--file", file}, out, err, busy.runner()), 1);
  EXPECT_EQ(busy.calls, forkscale_cli::calibrate_attempts);
  EXPECT_EQ(busy.pauses, forkscale_cli::calibrate_attempts - 1);
  EXPECT_FALSE(stdfs::exists(file));  // nothing stored
  const auto l = lines(err.str());
  ASSERT_EQ(l.size(), 1u) << err.str();
  EXPECT_TRUE(contains(l[0], "forkscale-report: the machine stayed busy in 3 calibrations")) << l[0];
  EXPECT_TRUE(contains(l[0], "nothing stored")) << l[0];
  EXPECT_TRUE(contains(l[0], "--force")) << l[0];
  EXPECT_TRUE(contains(out.str(), "attempt 1 of 3: the machine is busy (the median steal")) << out.str();
  EXPECT_TRUE(contains(out.str(), "attempt 2 of 3: the machine is busy (2 threads of other processes")) << out.str();
  EXPECT_TRUE(contains(out.str(), "not stored")) << out.str();
  // --force stores the quietest attempt: the smallest median steal.
  scripted_calibration forced = busy;
  forced.calls = forced.pauses = 0;
  std::ostringstream out2, err2;
  EXPECT_EQ(forkscale_cli::calibrate_command({"calibrate", "--force", "--file", file}, out2, err2, forced.runner()), 0);
  EXPECT_TRUE(err2.str().empty()) << err2.str();
  EXPECT_TRUE(contains(out2.str(), "stored although the machine was busy (--force)")) << out2.str();
  const auto stored = fs::stored_burden(fs::backend::std_thread, file);
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->steal_ns, 50000);
  EXPECT_EQ(stored->cpu_model, fs::this_machine().cpu_model);
  // Quiet at the second attempt: stored at once, no third attempt.
  scripted_calibration settles{{figures(2e6, 7.5e6, 0), figures(40000, 45000, 0), figures(1, 1, 0)}};
  std::ostringstream out3, err3;
  EXPECT_EQ(forkscale_cli::calibrate_command({"calibrate", "--file", file}, out3, err3, settles.runner()), 0);
  EXPECT_EQ(settles.calls, 2u);
  EXPECT_EQ(settles.pauses, 1u);
  EXPECT_EQ(fs::stored_burden(fs::backend::std_thread, file)->steal_ns, 40000);
}

TEST_F(Cli, CalibrateStoresTheBurden) {
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "one hardware thread: nothing can be stolen";
  const std::string file = (*dir_ / "cache" / "burden.json").string();
  // --force: the machine running the tests may be busy; this test is about storing.
  const outcome t = tool({"calibrate", "--force", "--file", file});
  EXPECT_EQ(t.status, 0) << t.err;
  EXPECT_TRUE(contains(t.out, "forkscale calibrate: std_thread")) << t.out;
  const auto m = fs::stored_burden(fs::backend::std_thread, file);
  ASSERT_TRUE(m);
  EXPECT_GT(m->spawn_ns, 0);
  for (const char* b : {"tbb", "openmp"}) {
    const outcome o = tool({"calibrate", "--backend", b, "--force", "--file", file});
#if defined(FORKSCALE_CLI_HAVE_TBB) && defined(FORKSCALE_CLI_HAVE_OPENMP)
    EXPECT_EQ(o.status, 0) << b << ": " << o.err;
    fs::backend k{};
    ASSERT_TRUE(fs::backend_from_name(b, k));
    EXPECT_TRUE(fs::stored_burden(k, file)) << b;
#else
    if (o.status != 0) expect_one_line_failure(o, "was built without", b);
#endif
  }
  EXPECT_TRUE(fs::stored_burden(fs::backend::std_thread, file));  // the other entries stay
}
