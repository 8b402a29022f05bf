// fs::session (session.hpp) and fs::merge_reports (merge.hpp): measurements from
// several threads with snapshots taken meanwhile, the periodic writer, the
// final snapshot, write failures, bad input, records and rotation, and the
// merge's own rules. Exact numbers under the cost clock; nothing here asserts a
// duration (the periodic writer is waited for by polling, with a generous
// limit). test_merge_property.cpp checks the merged numbers against random
// programs run one after the other.
#include <gtest/gtest.h>

#include <forkscale/detail/output/report_format.hpp>
#include <forkscale/forkscale.hpp>
#include <forkscale/read_report.hpp>
#include <forkscale/study/html.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace fs = forkscale;
namespace stdfs = std::filesystem;

fs::options cost_options() {
  fs::options o;
  o.clock = fs::clock_kind::cost;
  o.burden = 7;
  return o;
}

// One request: n units, a child of 2n units on a std::thread while the parent
// does n more, the join, 1 unit. Work 4n + 1, span 3n + 1.
void handle_request(std::uint64_t n) {
  fs::charge(n);
  fs::join_handle h;
  std::thread t(fs::spawn(h, [n] { fs::charge(2 * n); }));
  fs::charge(n);
  {
    fs::sync_point sp(h);
    t.join();
  }
  fs::charge(1);
}

// A fresh empty directory for one test, removed when the program exits.
stdfs::path fresh_dir(const std::string& name) {
  struct made_dirs {
    std::vector<stdfs::path> dirs;
    ~made_dirs() {
      for (const stdfs::path& d : dirs) {
        std::error_code ec;
        stdfs::remove_all(d, ec);
      }
    }
  };
  static made_dirs made;
  // Unique to this process: two builds of the suite may run at once.
  static const std::string run = std::to_string(std::random_device{}());
  stdfs::path d = stdfs::temp_directory_path() / ("forkscale_test_session_" + run + "_" + name);
  stdfs::remove_all(d);
  stdfs::create_directories(d);
  made.dirs.push_back(d);
  return d;
}

std::set<std::string> listing(const stdfs::path& dir) {
  std::set<std::string> out;
  for (const auto& e : stdfs::directory_iterator(dir)) out.insert(e.path().filename().string());
  return out;
}

std::string read_text(const stdfs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Waits until `ready` holds, checking every few milliseconds, for at most a
// minute (a bound for a stalled machine, not a timing assertion).
bool eventually(const std::function<bool()>& ready) {
  const auto limit = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  while (std::chrono::steady_clock::now() < limit) {
    if (ready()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return ready();
}

const fs::diagnostic* find_diagnostic(const fs::report& r, const std::string& text) {
  for (const auto& d : r.diagnostics)
    if (d.problem.find(text) != std::string::npos) return &d;
  return nullptr;
}

// Everything a snapshot of handle_request(10) "small" and handle_request(100)
// "big" measurements must be; empty when it is.
std::string check_snapshot(const fs::report& r) {
  std::ostringstream out;
  const std::string json = r.to_json();
  try {
    if (fs::from_json(json).to_json() != json) out << "the JSON does not read back to itself; ";
  } catch (const fs::error& e) {
    out << "the JSON does not read back: " << e.what() << "; ";
  }
  const fs::region_result& root = r.root();
  std::uint64_t inst = 0, work = 0, span = 0, small = 0, big = 0;
  for (const auto& row : r.regions) {
    if (row.depth != 1) continue;
    inst += row.instances;
    work += row.work;
    span += row.span;
    (row.label == "small" ? small : big) += row.instances;
  }
  if (root.instances != inst) out << "root instances " << root.instances << " != rows' " << inst << "; ";
  if (root.work != work) out << "root work " << root.work << " != rows' " << work << "; ";
  if (root.span != span) out << "root span " << root.span << " != rows' " << span << "; ";
  if (root.work != small * 41 + big * 401) out << "root work " << root.work << " for " << small << "+" << big << "; ";
  if (root.span != small * 31 + big * 301) out << "root span " << root.span << " for " << small << "+" << big << "; ";
  if (root.spawns != inst || root.syncs != inst) out << "spawns/syncs not one per measurement; ";
  if (!r.check_profile().empty()) out << r.check_profile() << "; ";
  if (const fs::diagnostic* d = find_diagnostic(r, "still running")) {
    const auto at = d->problem.find("has the ");
    if (at == std::string::npos || std::stoull(d->problem.substr(at + 8)) != root.instances)
      out << "the running note disagrees with the rows: " << d->problem << "; ";
  }
  return out.str();
}

TEST(Session, MeasurementsFromSeveralThreadsWhileSnapshotsAreTaken) {
  fs::session s("server", cost_options());
  constexpr int threads = 3, per_thread = 40;
  std::atomic<int> done{0};
  std::vector<std::thread> workers;
  workers.reserve(threads);
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      for (int i = 0; i < per_thread; ++i) {
        const bool small = (i + t) % 2 == 0;
        const fs::report r = s.measure(small ? "small" : "big", [&] { handle_request(small ? 10 : 100); });
        EXPECT_EQ(r.work(), small ? 41u : 401u);
      }
      done.fetch_add(1);
    });
  std::vector<std::string> problems;
  int snapshots = 0;
  while (done.load() < threads || snapshots < 5) {
    const std::string p = check_snapshot(s.snapshot());
    if (!p.empty() && problems.size() < 3) problems.push_back(p);
    ++snapshots;
  }
  for (auto& w : workers) w.join();
  for (const auto& p : problems) ADD_FAILURE() << p;
  EXPECT_EQ(s.finished(), std::uint64_t{threads * per_thread});
  EXPECT_EQ(s.running(), 0u);
  const fs::report last = s.snapshot();
  EXPECT_EQ(check_snapshot(last), "");
  EXPECT_EQ(last.root().instances, std::uint64_t{threads * per_thread});
  EXPECT_EQ(last.work(), 60u * 41 + 60u * 401);
  EXPECT_EQ(last.diagnostic_count, 0u) << last.diagnostics.front().problem;
  EXPECT_EQ(last.label, "server");
}

TEST(Session, SnapshotBeforeAnythingFinishedIsAReportOfZeros) {
  fs::session s("idle", cost_options());
  const fs::report r = s.snapshot();
  ASSERT_EQ(r.regions.size(), 1u);
  EXPECT_EQ(r.root().instances, 0u);
  EXPECT_EQ(r.work(), 0u);
  EXPECT_EQ(r.unit, "units");
  EXPECT_EQ(fs::from_json(r.to_json()).to_json(), r.to_json());
  EXPECT_FALSE(r.to_text().empty());
}

TEST(Session, SnapshotSaysHowManyMeasurementsAreStillRunning) {
  fs::session s("server", cost_options());
  s.measure("small", [] { handle_request(10); });
  std::atomic<bool> inside{false}, release{false};
  std::thread t([&] {
    s.measure("big", [&] {
      fs::charge(5);
      inside = true;
      while (!release) std::this_thread::yield();
    });
  });
  while (!inside) std::this_thread::yield();
  const fs::report r = s.snapshot();
  release = true;
  t.join();
  EXPECT_EQ(s.running(), 0u);
  const fs::diagnostic* d = find_diagnostic(r, "still running");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->problem, "1 measurement(s) still running are not included (the snapshot has the 1 that finished)");
  EXPECT_EQ(r.work(), 41u);
  EXPECT_EQ(s.snapshot().work(), 46u);
  EXPECT_EQ(find_diagnostic(s.snapshot(), "still running"), nullptr);
}

TEST(Session, WritesSnapshotsPeriodicallyAndAFinalOne) {
  const stdfs::path dir = fresh_dir("periodic");
  const stdfs::path file = dir / "server.json";
  fs::snapshot_options snap;
  snap.path = file.string();
  snap.every = std::chrono::milliseconds(1);
  {
    fs::session s("server", cost_options(), snap);
    for (int i = 0; i < 5; ++i) s.measure("small", [] { handle_request(10); });
    const bool written = eventually([&] {
      try {
        return fs::read_report(file.string()).root().instances == 5;
      } catch (const fs::error&) {
        return false;  // not written yet
      }
    });
    ASSERT_TRUE(written) << "no snapshot with the 5 measurements was written within a minute";
    for (int i = 0; i < 3; ++i) s.measure("big", [] { handle_request(100); });
  }
  const fs::report final_snapshot = fs::read_report(file.string());
  EXPECT_EQ(final_snapshot.root().instances, 8u);
  EXPECT_EQ(final_snapshot.work(), 5u * 41 + 3u * 401);
  EXPECT_EQ(check_snapshot(final_snapshot), "");
  EXPECT_EQ(listing(dir), std::set<std::string>{"server.json"});  // no temporary left
}

TEST(Session, WritesEachFormatOnDemand) {
  const stdfs::path dir = fresh_dir("formats");
  fs::session s("server", cost_options());
  s.measure("small", [] { handle_request(10); });
  const fs::report r = s.snapshot();
  s.write_snapshot((dir / "s.json").string());
  s.write_snapshot((dir / "s.txt").string());
  s.write_snapshot((dir / "s.csv").string());
  s.write_snapshot((dir / "s.html").string());
  s.write_snapshot((dir / "S.JSON").string());  // the extension in any case
  EXPECT_EQ(read_text(dir / "s.json"), r.to_json());
  EXPECT_EQ(read_text(dir / "S.JSON"), r.to_json());
  EXPECT_EQ(read_text(dir / "s.txt"), r.to_text());
  EXPECT_EQ(read_text(dir / "s.csv"), r.to_csv());
  EXPECT_EQ(read_text(dir / "s.html"), fs::to_html(r));
}

TEST(Session, HtmlSnapshotsNeedTheHtmlHeader) {
  auto& hook = fs::detail::snapshot_html_renderer();
  const auto saved = hook;
  hook = nullptr;  // as in a program that does not include forkscale/study/html.hpp
  fs::snapshot_options snap;
  snap.path = "snapshot.html";
  try {
    fs::session s("server", cost_options(), snap);
    ADD_FAILURE() << "no error";
  } catch (const fs::error& e) {
    EXPECT_EQ(std::string(e.what()),
              "forkscale: report path 'snapshot.html': an HTML report needs the HTML page: #include "
              "<forkscale/study/html.hpp> in the program");
  }
  hook = saved;
}

TEST(Session, BadSnapshotOptionsAreErrors) {
  auto message = [](const fs::snapshot_options& snap) {
    try {
      fs::session s("server", cost_options(), snap);
    } catch (const fs::error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  fs::snapshot_options snap;
  snap.path = "snapshot.pdf";
  EXPECT_EQ(message(snap),
            "forkscale: report path 'snapshot.pdf': unknown extension '.pdf' (the extension names the format, in "
            "any case: .json, .txt, .csv, .html or .htm)");
  snap.path = "dir.json/snapshot";
  EXPECT_EQ(message(snap),
            "forkscale: report path 'dir.json/snapshot': no extension (the extension names the format, in any "
            "case: .json, .txt, .csv, .html or .htm)");
  snap.path = "s.json";
  snap.every = std::chrono::seconds(-1);
  EXPECT_EQ(message(snap), "forkscale: session 'server': snapshot_options::every is negative");
  snap.path.clear();
  snap.every = std::chrono::seconds(1);
  EXPECT_EQ(message(snap),
            "forkscale: session 'server': snapshot_options::every is set but snapshot_options::path "
            "is empty");

  fs::session s("server", cost_options());
  try {
    s.write_snapshot();
    ADD_FAILURE() << "no error";
  } catch (const fs::error& e) {
    EXPECT_EQ(std::string(e.what()), "forkscale: session 'server': no snapshot path (snapshot_options::path)");
  }
  EXPECT_THROW(s.write_snapshot(""), fs::error);
  EXPECT_THROW(s.write_snapshot("x.pdf"), fs::error);
}

// One rule picks a report's format from a path, for a session's snapshots and
// for the writer of the OMPT tool's and the preload libraries' report at the
// program's exit (FORKSCALE_REPORT): the extension in any case, .htm as .html,
// and the same one line for a path that names no format.
TEST(ReportFormat, OneRuleForSnapshotsAndTheReportAtExit) {
  using fs::detail::report_format;
  EXPECT_EQ(fs::detail::report_format_of("a/r.JSON"), report_format::json);
  EXPECT_EQ(fs::detail::report_format_of("r.TxT"), report_format::text);
  EXPECT_EQ(fs::detail::report_format_of("r.Csv"), report_format::csv);
  EXPECT_EQ(fs::detail::report_format_of("r.HTML"), report_format::html);
  EXPECT_EQ(fs::detail::report_format_of("r.Htm"), report_format::html);

  const stdfs::path dir = fresh_dir("report_format");
  fs::session s("server", cost_options());
  s.measure("small", [] { handle_request(10); });
  const fs::report r = s.snapshot();
  for (const char* name : {"at_exit.JSON", "at_exit.Htm", "at_exit.tXt"}) {
    const std::string path = (dir / name).string();
    testing::internal::CaptureStderr();
    const bool written = fs::detail::write_report_or_show(r, path.c_str());
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "") << name;
    EXPECT_TRUE(written) << name;
  }
  EXPECT_EQ(read_text(dir / "at_exit.JSON"), r.to_json());
  EXPECT_EQ(read_text(dir / "at_exit.Htm"), fs::to_html(r));
  EXPECT_EQ(read_text(dir / "at_exit.tXt"), r.to_text());
  s.write_snapshot((dir / "snap.Htm").string());
  EXPECT_EQ(read_text(dir / "snap.Htm"), fs::to_html(r));

  // A path with no format: the session refuses it with a line; the writer at
  // exit says the same line once, then shows the report (nothing is lost).
  for (const char* name : {"x.doc", "dir.json/noext"}) {
    const std::string bad = name;
    std::string refused = "no error";
    try {
      s.write_snapshot(bad);
    } catch (const fs::error& e) {
      refused = e.what();
    }
    EXPECT_NE(refused.find("'" + bad + "'"), std::string::npos) << refused;
    EXPECT_NE(refused.find(".json, .txt, .csv, .html or .htm"), std::string::npos) << refused;
    testing::internal::CaptureStderr();
    EXPECT_FALSE(fs::detail::write_report_or_show(r, bad.c_str()));
    EXPECT_EQ(testing::internal::GetCapturedStderr(), refused + "\n" + r.to_text());
  }
  EXPECT_EQ(listing(dir), (std::set<std::string>{"at_exit.Htm", "at_exit.JSON", "at_exit.tXt", "snap.Htm"}));
}

// A snapshot path whose directory is a file: every write fails. The periodic
// writer throws nothing, prints one line for the one distinct error, and the
// snapshots carry it; no file is left anywhere.
TEST(Session, UnwritablePathIsOneDiagnosticAndNoFile) {
  const stdfs::path dir = fresh_dir("unwritable");
  std::ofstream(dir / "blocked") << "a file where a directory should be\n";
  fs::snapshot_options snap;
  snap.path = (dir / "blocked" / "s.json").string();
  snap.every = std::chrono::milliseconds(1);
  testing::internal::CaptureStderr();
  {
    fs::session s("server", cost_options(), snap);
    s.measure("small", [] { handle_request(10); });
    // Several failures, all of the same error.
    const bool noted = eventually([&] {
      const fs::report now = s.snapshot();
      const fs::diagnostic* d = find_diagnostic(now, "a snapshot could not be written (");
      return d && d->problem.find("(1 time(s))") == std::string::npos &&
             d->problem.find("(2 time(s))") == std::string::npos;
    });
    EXPECT_TRUE(noted) << "the periodic writer's failures were not noted within a minute";
    const fs::report r = s.snapshot();
    EXPECT_EQ(r.work(), 41u);
    const fs::diagnostic* d = find_diagnostic(r, "could not be written");
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->where, "session 'server'");
    EXPECT_NE(d->problem.find("forkscale: cannot write report '" + snap.path + "'"), std::string::npos) << d->problem;
    EXPECT_THROW(s.write_snapshot(), fs::error);  // on demand, the caller hears of it
  }
  const std::string err = testing::internal::GetCapturedStderr();
  std::istringstream lines(err);
  int printed = 0;
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("forkscale: cannot write report '" + snap.path + "'", 0) == 0) ++printed;
  EXPECT_EQ(printed, 1) << err;
  EXPECT_EQ(listing(dir), std::set<std::string>{"blocked"});
}

// A snapshot written on demand carries the write failures noted before it; a
// write onto a directory leaves it as it was.
TEST(Session, WrittenSnapshotCarriesEarlierFailures) {
  const stdfs::path dir = fresh_dir("carried");
  stdfs::create_directories(dir / "taken.json");  // a directory where the file should be
  fs::snapshot_options snap;
  snap.path = (dir / "taken.json").string();
  snap.every = std::chrono::milliseconds(1);
  testing::internal::CaptureStderr();
  {
    fs::session s("server", cost_options(), snap);
    s.measure("small", [] { handle_request(10); });
    ASSERT_TRUE(eventually([&] { return find_diagnostic(s.snapshot(), "could not be written") != nullptr; }));
    s.write_snapshot((dir / "ok.json").string());
    const fs::report written = fs::read_report((dir / "ok.json").string());
    EXPECT_NE(find_diagnostic(written, "could not be written"), nullptr);
    EXPECT_EQ(written.work(), 41u);
    EXPECT_THROW(s.write_snapshot((dir / "taken.json").string()), fs::error);
  }
  testing::internal::GetCapturedStderr();
  EXPECT_TRUE(stdfs::is_directory(dir / "taken.json"));
  EXPECT_TRUE(stdfs::is_empty(dir / "taken.json"));
  EXPECT_EQ(listing(dir), (std::set<std::string>{"taken.json", "ok.json"}));
}

TEST(Session, AMeasurementThatThrowsIsStillCounted) {
  fs::session s("server", cost_options());
  EXPECT_THROW(s.measure("failing",
                         [] {
                           fs::charge(5);
                           throw std::runtime_error("request failed");
                         }),
               std::runtime_error);
  EXPECT_EQ(s.finished(), 1u);
  EXPECT_EQ(s.running(), 0u);
  EXPECT_EQ(s.snapshot().work(), 5u);
}

TEST(Session, AMeasurementInsideAnotherIsARegionOfIt) {
  fs::session s("server", cost_options());
  const fs::report outer = fs::measure(
      "outer", [&] { s.measure("inner", [] { fs::charge(3); }); }, cost_options());
  ASSERT_NE(outer.find("outer/inner"), nullptr);
  EXPECT_EQ(outer.find("outer/inner")->work, 3u);
  EXPECT_EQ(s.finished(), 0u);
  const fs::report r = s.snapshot();
  EXPECT_EQ(r.work(), 0u);
  ASSERT_NE(find_diagnostic(r, "made inside another measurement"), nullptr);
}

TEST(Session, KeepsRecordsAndRotatesThem) {
  fs::options opt = cost_options();
  opt.record = true;
  {
    fs::session s("server", opt);
    for (int i = 0; i < 3; ++i) s.measure(i == 1 ? "big" : "small", [&] { handle_request(i == 1 ? 100 : 10); });
    s.snapshot();
    const auto kept = s.records();
    ASSERT_EQ(kept.size(), 3u);  // without rotation: every one
    EXPECT_EQ(kept[1].label, "big");
    ASSERT_TRUE(kept[1].record);
    EXPECT_TRUE(kept[1].record->complete);
    EXPECT_EQ(s.snapshot().record, nullptr);  // a snapshot has no record of its own
  }
  fs::snapshot_options snap;
  snap.rotate = true;
  fs::session s("server", opt, snap);
  s.measure("small", [] { handle_request(10); });
  s.measure("small", [] { handle_request(10); });
  EXPECT_EQ(s.records().size(), 2u);
  EXPECT_EQ(s.snapshot().root().instances, 2u);  // the totals are not rotated
  EXPECT_EQ(s.records().size(), 0u);
  s.measure("big", [] { handle_request(100); });
  ASSERT_EQ(s.records().size(), 1u);
  EXPECT_EQ(s.records().front().label, "big");
  EXPECT_EQ(s.snapshot().root().instances, 3u);
}

// ---- fs::merge_reports ----------------------------------------------------------

fs::report request_report(const std::string& label, std::uint64_t n, fs::options opt = cost_options()) {
  return fs::measure(
      label, [n] { handle_request(n); }, opt);
}

TEST(MergeReports, NothingToMergeIsAnEmptyReport) {
  EXPECT_TRUE(fs::merge_reports({}).empty());
  EXPECT_TRUE(fs::merge_reports({fs::report{}, fs::report{}}).empty());
}

TEST(MergeReports, RowsAreRegionsOfTheMergedRoot) {
  const fs::report a = request_report("x/y", 10), b = request_report("x/y", 100), c = request_report("z", 10);
  const fs::report m = fs::merge_reports({a, b, c}, "all");
  ASSERT_EQ(m.regions.size(), 3u);
  EXPECT_EQ(m.root().path, "all");
  EXPECT_EQ(m.root().instances, 3u);
  EXPECT_EQ(m.work(), 41u + 401 + 41);
  EXPECT_EQ(m.span(), 31u + 301 + 31);
  EXPECT_EQ(m.burdened_span(), a.burdened_span() + b.burdened_span() + c.burdened_span());
  EXPECT_DOUBLE_EQ(m.parallelism(), 483.0 / 363.0);  // total work over total span
  const fs::region_result* xy = m.find("all/x\\/y");
  ASSERT_NE(xy, nullptr);
  EXPECT_EQ(xy->label, "x/y");
  EXPECT_EQ(xy->parent, "all");
  EXPECT_EQ(xy->depth, 1u);
  EXPECT_EQ(xy->instances, 2u);
  EXPECT_EQ(xy->work, 442u);
  EXPECT_EQ(m.regions[2].path, "all/z");
  EXPECT_EQ(m.check_profile(), "");
  EXPECT_EQ(m.call_sites.front().top_call_site_on_work.count, 3u);
  EXPECT_EQ(m.spawn_sites.front().tasks, 3u);
  EXPECT_EQ(m.diagnostic_count, 0u);
}

TEST(MergeReports, ReportsInDifferentUnitsDoNotMerge) {
  fs::report a = request_report("a", 10), b = request_report("b", 10);
  b.unit = "ns";
  try {
    fs::merge_reports({a, b});
    ADD_FAILURE() << "no error";
  } catch (const fs::error& e) {
    EXPECT_EQ(std::string(e.what()), "forkscale: cannot merge report 'b' (in ns) with reports in units");
  }
}

TEST(MergeReports, AReportWithoutProfileLeavesTheProfilesOut) {
  fs::options off = cost_options();
  off.site_profiles = false;
  const fs::report m = fs::merge_reports({request_report("a", 10), request_report("b", 10, off)});
  EXPECT_TRUE(m.call_sites.empty());
  EXPECT_TRUE(m.spawn_sites.empty());
  EXPECT_EQ(m.work(), 82u);
  ASSERT_EQ(m.diagnostics.size(), 1u);
  EXPECT_EQ(m.diagnostics.front().problem,
            "site profiles left out: 1 of 2 measurement(s) have none (options.site_profiles off, or misuse left them "
            "out)");
}

TEST(MergeReports, DifferentWhatIfFactorsLeaveTheWhatIfRowsOut) {
  auto with_region = [](const std::vector<double>& factors) {
    fs::options opt = cost_options();
    opt.what_if.factors = factors;
    opt.what_if.read_environment = false;
    return fs::measure(
        "w",
        [] {
          fs::charge(4);
          fs::what_if_region wi("hot");
          fs::charge(6);
        },
        opt);
  };
  const fs::report same = fs::merge_reports({with_region({2}), with_region({2})});
  ASSERT_EQ(same.what_if.size(), 4u);                        // (all regions) and "hot", each parallelized and optimized
  EXPECT_EQ(same.what_if[0].span_ticks_num, 2 * 7 + 2 * 7);  // (4 + 6/2) per measurement, times 2
  EXPECT_DOUBLE_EQ(same.what_if[0].span, 14.0);
  EXPECT_EQ(same.what_if[2].entries, 2u);
  const fs::report differ = fs::merge_reports({with_region({2}), with_region({4})});
  EXPECT_TRUE(differ.what_if.empty());
  ASSERT_EQ(differ.diagnostics.size(), 1u);
  EXPECT_EQ(differ.diagnostics.front().problem,
            "what-if rows left out: the measurements analysed different what-if factors (2 and 4 in 'w')");
  // A measurement that entered no region adds its measured numbers.
  const fs::report mixed = fs::merge_reports({with_region({2}), request_report("r", 10)});
  ASSERT_EQ(mixed.what_if.size(), 4u);
  EXPECT_EQ(mixed.what_if[0].span_ticks_num, 2 * 7 + 2 * 31);
  EXPECT_DOUBLE_EQ(mixed.what_if[1].work, 7.0 + 41.0);  // optimized: 4 + 6/2, and 41
}

TEST(MergeReports, HeaderDifferencesAreNotedAndDiagnosticsCapped) {
  fs::options other = cost_options();
  other.burden = 9;
  fs::report a = request_report("a", 10);
  a.diagnostics.push_back(fs::diagnostic{"a.cpp:1 in f", "first"});
  a.diagnostic_count = 1;
  a.load.checked = true;
  a.load.involuntary_switches = 3;
  fs::report b = request_report("b", 10, other);
  b.load.involuntary_switches = 4;
  b.load.wait_ns = 10;
  b.max_processors = 64;
  const fs::report m = fs::merge_reports({a, b});
  ASSERT_EQ(m.diagnostics.size(), 2u);
  EXPECT_EQ(m.diagnostics[0].problem,
            "the measurements differ in burden (7 in 'a', 9 in 'b'); the merged report states the first "
            "measurement's");
  EXPECT_EQ(m.diagnostics[1].problem, "first");
  EXPECT_EQ(m.diagnostic_count, 2u);
  EXPECT_EQ(m.burden, 7u);
  EXPECT_EQ(m.max_processors, 64u);
  EXPECT_TRUE(m.load.checked);
  EXPECT_EQ(m.load.involuntary_switches, 7u);
  EXPECT_EQ(m.load.wait_ns, 10u);

  std::vector<fs::report> many(150, a);
  const fs::report capped = fs::merge_reports(many);
  EXPECT_EQ(capped.diagnostics.size(), 100u);
  EXPECT_EQ(capped.diagnostic_count, 150u);
  EXPECT_EQ(fs::from_json(capped.to_json()).diagnostic_count, 150u);
}

}  // namespace
