// Writes the pages that tests/browser/check_html_report.py opens in headless
// Chromium:
//
//   html_report_pages OUT_DIR   ->  OUT_DIR/report.html  (a report: summary,
//                                   speedup estimate, regions, call-site and
//                                   spawn-site tables, the scalability plot)
//                                   OUT_DIR/study.html   (a scaling study whose
//                                   profile is the same report: both plots)
//
// The report is built by hand, so the browser test knows every row. The numbers
// are chosen so that the profile's self-checks hold (local span on span sums to
// the span, local work on work to the work; likewise critical span and exclusive
// work for the spawn sites), so that the default order (local span on span,
// largest first) differs from the report's own order, and so that sorting the
// "local work on work" column numerically differs from sorting its text. Keep
// the EXPECTED data in check_html_report.py in step with this file.
#include <forkscale/forkscale.hpp>
#include <forkscale/study/html.hpp>
#include <forkscale/study/study.hpp>

#include <cstdint>
#include <exception>
#include <iostream>
#include <string>

namespace fs = forkscale;

namespace {

const std::string evil = "<img src=x onerror=alert(1)>";

fs::site_measure m(std::uint64_t count, std::uint64_t work, std::int64_t span) {
  fs::site_measure s;
  s.count = count;
  s.work = work;
  s.span = span;
  return s;
}

struct call_row {
  const char* name;
  const char* file;
  unsigned line;
  const char* function;
  std::string tag;
  fs::site_kind kind;
  bool recursive;
  fs::site_measure local_on_span, local_on_work, top_call_site_on_work, top_caller_on_work;
};

fs::call_site_profile call_site(const call_row& r) {
  fs::call_site_profile p;
  p.name = r.name;
  p.file = r.file;
  p.line = r.line;
  p.function = r.function;
  p.tag = r.tag;
  p.kind = r.kind;
  p.recursive = r.recursive;
  p.local_on_span = r.local_on_span;
  p.local_on_work = r.local_on_work;
  p.top_call_site_on_work = r.top_call_site_on_work;
  p.top_caller_on_work = r.top_caller_on_work;
  // On-span top-call-site and top-caller measures are not shown in the table.
  p.top_call_site_on_span = r.local_on_span;
  p.top_caller_on_span = r.local_on_span;
  return p;
}

fs::spawn_site_profile spawn_site(const char* name, const char* function, fs::site_kind kind, bool recursive,
                                  std::uint64_t tasks, std::uint64_t work, std::uint64_t span,
                                  std::uint64_t exclusive_work, std::int64_t critical_span, double critical_percent) {
  fs::spawn_site_profile p;
  p.name = name;
  p.file = "qs.cpp";
  p.line = 17;
  p.function = function;
  p.kind = kind;
  p.recursive = recursive;
  p.tasks = tasks;
  p.work = work;
  p.span = span;
  p.exclusive_work = exclusive_work;
  p.critical_span = critical_span;
  p.critical_percent = critical_percent;
  return p;
}

fs::report site_report() {
  fs::report r;
  r.label = "quicksort " + evil;
  r.unit = "units";
  r.burden = 15000;
  r.max_processors = 8;  // speedup estimate rows: P = 2, 4, 8
  fs::region_result root;
  root.label = root.path = "quicksort";
  root.instances = 1;
  root.work = root.raw_work = 100000;
  root.span = root.raw_span = 2500;
  root.burdened_span = 40000;
  root.spawns = root.syncs = 100;
  root.calls = 114;
  r.regions.push_back(root);
  fs::region_result child = root;
  child.label = "partition";
  child.path = "quicksort/partition";
  child.parent = "quicksort";
  child.depth = 1;
  child.work = child.raw_work = 40000;
  child.span = child.raw_span = 1200;
  r.regions.push_back(child);

  // In the report's order (root first), not in the page's default order.
  const call_row rows[] = {
      {"quicksort", "qs.cpp", 0, "main", "", fs::site_kind::root, false, m(1, 300, 300), m(1, 1000, 300),
       m(1, 100000, 2500), m(1, 100000, 2500)},
      {"util.cpp:9", "src/util.cpp", 9, "checksum", "", fs::site_kind::call, false, m(0, 0, 0), m(2, 100, 50),
       m(2, 100, 50), m(2, 100, 50)},
      {"qs.cpp:21", "src/qs.cpp", 21, "sort<int>", "", fs::site_kind::call, true, m(1, 250, 250), m(100, 8000, 1000),
       m(1, 98000, 2100), m(1, 98000, 2100)},
      {"merge & \"copy\"", "src/merge.cpp\" autofocus onfocus=\"alert(7)", 5, "merge<'a'>", "merge & \"copy\"",
       fs::site_kind::call, false, m(1, 50, 50), m(3, 900, 120), m(3, 900, 120), m(3, 900, 120)},
      {"qs.cpp:17", "src/qs.cpp", 17, "sort<int>", "", fs::site_kind::spawn, true, m(1, 700, 700), m(100, 50000, 20000),
       m(1, 99000, 2200), m(1, 99000, 2200)},
      {"", "src/qs.cpp", 42, "partition", evil, fs::site_kind::call, false, m(1, 1200, 1200), m(9, 40000, 9000),
       m(9, 40000, 9000), m(9, 40000, 9000)},
  };
  for (const call_row& row : rows) {
    fs::call_site_profile p = call_site(row);
    if (p.name.empty()) p.name = p.tag;  // the tag names the site
    r.call_sites.push_back(p);
  }
  r.spawn_sites.push_back(spawn_site("quicksort", "main", fs::site_kind::root, false, 1, 100000, 2500, 30000, 900, 36));
  r.spawn_sites.push_back(
      spawn_site("</td><script>alert(4)</script>", "worker", fs::site_kind::spawn, false, 5, 1000, 400, 1000, 100, 4));
  r.spawn_sites.push_back(
      spawn_site("qs.cpp:17", "sort<int>", fs::site_kind::spawn, true, 100, 99000, 2200, 69000, 1500, 60));
  return r;
}

fs::study_result site_study() {
  fs::study_result s;
  s.label = "quicksort study " + evil;
  s.clock = fs::clock_kind::tsc;
  s.hardware_threads = 2;
  s.repetitions = 2;
  s.baseline = fs::sample_stats::of({1000, 1010});
  for (const unsigned p : {1u, 2u, 4u}) {
    fs::study_point pt;
    pt.processors = p;
    pt.oversubscribed = p > 2;
    pt.time = fs::sample_stats::of({1200.0 / p + 40, 1200.0 / p + 50});
    pt.raw_work = fs::sample_stats::of({1200, 1210});
    pt.work = pt.raw_work;
    pt.spawns = fs::sample_stats::of({10, 10});
    s.points.push_back(pt);
  }
  s.profile = site_report();
  s.recompute();
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: html_report_pages OUT_DIR\n";
    return 2;
  }
  try {
    const std::string dir = argv[1];
    fs::write_html(site_report(), dir + "/report.html");
    fs::write_html(site_study(), dir + "/study.html");
    std::cout << dir << "/report.html\n" << dir << "/study.html\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
}
