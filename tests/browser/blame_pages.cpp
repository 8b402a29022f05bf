// Writes the page tests/browser/check_blame_html.py opens: the HTML report of a
// hand-made recorded run (tests/test_blame.cpp's fan-out: two threads, a long
// child, a sync) with two lock rows, one of them held on the critical path.
// Site names carry markup, which must show as text.
//
//   blame_pages DIR     -> DIR/blame.html
#include <forkscale/forkscale.hpp>
#include <forkscale/study/html.hpp>

#include <iostream>
#include <memory>
#include <string>

namespace fs = forkscale;

namespace {

fs::record_site site(const std::string& name, const std::string& function) {
  fs::record_site s;
  s.name = name;
  s.file = "src/fan.cpp";
  s.line = 7;
  s.function = function;
  return s;
}

fs::record_strand strand(std::uint32_t thread, std::uint32_t frame, std::uint64_t start, std::uint64_t end,
                         std::int64_t prev, std::int64_t join = -1) {
  fs::record_strand s;
  s.thread = thread;
  s.frame = frame;
  s.start_ns = start;
  s.end_ns = end;
  s.work = s.span = end - start;
  s.prev = prev;
  s.join = join;
  return s;
}

// Times in µs, so that the plot's axis is in µs too. Blame (see test_blame.cpp):
// the long child 50,000, the root 17,000, nothing running 10,000; the sync waited
// 55,000.
fs::report report() {
  auto r = std::make_shared<fs::execution_record>();
  r->threads.resize(2);
  r->threads[0].os_id = 101;
  r->threads[1].os_id = 102;
  r->sites = {site("short.cpp:1", "fan_out"), site("<img src=x onerror=alert(1)>", "fan_out<'a'>"),
              site("sync.cpp:3", "fan_out")};
  r->frames.resize(3);
  for (std::uint32_t f = 1; f < 3; ++f) {
    r->frames[f].kind = fs::record_frame::kind_type::spawn;
    r->frames[f].site = f - 1;
    r->frames[f].depth = 1;
  }
  const std::uint64_t us = 1000;
  r->strands = {strand(0, 0, 0, 10 * us, -1),       strand(0, 0, 10 * us, 20 * us, 0),
                strand(1, 2, 12 * us, 100 * us, 0), strand(0, 0, 20 * us, 30 * us, 1),
                strand(0, 1, 30 * us, 50 * us, 1),  strand(0, 0, 105 * us, 110 * us, 3, 0)};
  r->strands[0].critical = r->strands[2].critical = r->strands[5].critical = true;
  fs::record_join j;
  j.strands = {2, 4};
  j.site = 2;
  j.wait_start_ns = 30 * us;
  j.wait_end_ns = 105 * us;
  r->joins.push_back(j);
  r->wall_ns = 110 * us;
  fs::report rep;
  rep.label = "fan-out";
  rep.unit = "ns";
  rep.clock = fs::clock_kind::steady;
  rep.regions.emplace_back();
  rep.regions[0].work = 143 * us;
  rep.regions[0].span = 103 * us;
  rep.record = r;
  fs::lock_site_profile a;
  a.lock = "queue";
  a.name = "fan.cpp:20";
  a.function = "fan_out";
  a.acquisitions = 40;
  a.contended = 6;
  a.wait_ns = 9000;
  a.max_wait_ns = 4000;
  a.hold_ns = 30000;
  a.max_hold_ns = 2000;
  a.critical_holds = 3;
  a.critical_hold_ns = 1500;
  fs::lock_site_profile b = a;
  b.name = "fan.cpp:31";
  b.lock = "<b>log</b>";
  b.wait_ns = 100;
  b.max_wait_ns = 100;
  b.contended = 1;
  b.blamed_wait_ns = 9000;
  b.blamed_waits = 6;
  b.critical_holds = 0;
  b.critical_hold_ns = 0;
  rep.locks = {a, b};
  return rep;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: blame_pages DIR\n";
    return 2;
  }
  try {
    fs::write_html(report(), std::string(argv[1]) + "/blame.html");
  } catch (const fs::error& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  return 0;
}
