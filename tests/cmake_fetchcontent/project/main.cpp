// Built by tests/cmake_consumer.cmake through FetchContent: the include path,
// C++17 and Threads all come from linking forkscale::forkscale alone. Uses the
// one-line guard macros of the README.
#include <forkscale/forkscale.hpp>

#include <cstdint>
#include <cstdio>
#include <string>

namespace fs = forkscale;

int main() {
  fs::options opt;
  opt.clock = fs::clock_kind::cost;
  fs::report rep = fs::measure(
      "consumer",
      [] {
        {
          FORKSCALE_REGION("serial");
          fs::charge(5);
        }
        fs::spawn([] { fs::charge(10); })();
        {
          FORKSCALE_CALL_SITE();
          fs::charge(2);
        }
        FORKSCALE_SYNC_POINT();
      },
      opt);
  // work = 5 + 10 + 2, span = 5 + max(10, 2)
  const fs::region_result* serial = rep.find("consumer/serial");
  const bool ok = rep.work() == 17 && rep.span() == 15 && serial && serial->work == 5 &&
                  rep.to_json().find("\"serial\"") != std::string::npos;
  std::printf("fetchcontent consumer: work=%llu span=%llu %s\n", static_cast<unsigned long long>(rep.work()),
              static_cast<unsigned long long>(rep.span()), ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
