// Writes the page that tests/browser/check_html_timeline.py opens in headless
// Chromium:
//
//   html_timeline_pages OUT_DIR  ->  OUT_DIR/timeline.html  (a recorded report:
//                                    its timeline and critical-path flame graph)
//                                    OUT_DIR/timeline.json  (the same report as
//                                    JSON, record included, for the test's
//                                    expectations)
//
// A real measurement under the cost clock: fib on two std::threads joined by a
// join handle, inside a region, with a call site whose tag tries to break out of
// the SVG ("</text><script>..."), so that the test knows the strands from the
// JSON and checks that the names stay text.
#include <forkscale/forkscale.hpp>
#include <forkscale/study/html.hpp>

#include <exception>
#include <iostream>
#include <string>
#include <thread>

namespace fs = forkscale;

namespace {

long fib(int n) {
  fs::charge(static_cast<std::uint64_t>(n) + 1);
  if (n < 2) return n;
  long x = 0, y = 0;
  auto t = fs::spawn([&] { x = fib(n - 1); });
  t();
  {
    fs::call_site cs(fs::site::tagged("</text><script>alert(5)</script>"));
    y = fib(n - 2);
  }
  fs::sync_point sp;
  return x + y;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: html_timeline_pages OUT_DIR\n";
    return 2;
  }
  try {
    fs::options o;
    o.clock = fs::clock_kind::cost;
    o.record = true;
    const fs::report rep = fs::measure(
        "fib on two threads",
        [] {
          fs::region r("both halves");
          fs::join_handle h;
          std::thread t(fs::spawn(h, [] { fib(11); }));
          fib(10);
          fs::sync_point sp(h);
          t.join();
        },
        o);
    const std::string dir = argv[1];
    fs::write_html(rep, dir + "/timeline.html");
    rep.write_json(dir + "/timeline.json");
    std::cout << dir << "/timeline.html\n" << dir << "/timeline.json\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
}
