// server: a server-style loop measured with fs::session (docs/sessions.md).
//
//   server [REQUESTS] [--workers W] [--clock auto|tsc|steady|thread_cpu|cost]
//          [--snapshot PATH] [--every MS]
//
// A producer thread puts REQUESTS (default 200) requests on a queue; W worker
// threads (default 2) take them off and handle each with parallel work of its
// own: a "sum" request adds up a vector in four chunks, three on fs::thread
// (forkscale/adapters/std_thread.hpp) and one on the worker; a "sort" request
// sorts the two halves of a vector at once (one half on fs::async) and merges
// them. Each request is one s.measure; the session writes the totals so far to
// PATH (default server-snapshot.json; the extension names the format) every MS
// milliseconds (default 1000) and once more when it ends.
//
// Each request's own report is printed as one line, so the final snapshot can be
// checked against them: under --clock cost (one unit per element a request adds
// or compares) the snapshot's work, span, burdened span, spawns and syncs are
// the sums of the printed ones, exactly, whichever worker handled which request
// and in whatever order (examples/check_session.cmake does that).
//
// Exit status: 0 every request answered correctly and the final snapshot
// written; 1 a wrong answer or a diagnostic; 2 bad command line or the snapshot
// cannot be written.
#include <algorithm>
#include <charconv>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <iostream>
#include <mutex>
#include <numeric>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include <forkscale/adapters/std_thread.hpp>
#include <forkscale/detail/output/report_format.hpp>  // the format its snapshot path names
#include <forkscale/forkscale.hpp>
#include <forkscale/read_report.hpp>

namespace fs = forkscale;

namespace {

struct config {
  std::uint64_t requests = 200;
  unsigned workers = 2;
  fs::clock_kind clock = fs::clock_kind::automatic;
  std::string snapshot = "server-snapshot.json";
  std::uint64_t every_ms = 1000;
};

struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::uint64_t positive(const std::string& text, std::uint64_t max, const std::string& what) {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v == 0 || v > max)
    throw usage_error(what + " must be a whole number from 1 to " + std::to_string(max) + ", not '" + text + "'");
  return v;
}

fs::clock_kind clock_named(const std::string& name) {
  for (const fs::clock_kind k :
       {fs::clock_kind::tsc, fs::clock_kind::steady, fs::clock_kind::thread_cpu, fs::clock_kind::cost})
    if (name == fs::to_string(k)) return k;
  if (name == "auto") return fs::clock_kind::automatic;
  throw usage_error("unknown clock '" + name + "' (auto, tsc, steady, thread_cpu or cost)");
}

config parse(int argc, char** argv) {
  config c;
  bool have_count = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw usage_error(a + " needs a value");
      return argv[++i];
    };
    if (a == "--workers") {
      c.workers = static_cast<unsigned>(positive(value(), 64, "--workers"));
    } else if (a == "--clock") {
      c.clock = clock_named(value());
    } else if (a == "--snapshot") {
      c.snapshot = value();
      if (c.snapshot.empty()) throw usage_error("--snapshot needs a path");
    } else if (a == "--every") {
      c.every_ms = positive(value(), 86'400'000, "--every");
    } else if (!a.empty() && a[0] == '-') {
      throw usage_error("unknown option '" + a + "'");
    } else if (have_count) {
      throw usage_error("more than one request count ('" + a + "')");
    } else {
      c.requests = positive(a, 1'000'000, "REQUESTS");
      have_count = true;
    }
  }
  return c;
}

// The request queue: the producer pushes request numbers, then closes it.
class request_queue {
 public:
  void push(std::uint64_t r) {
    {
      std::lock_guard<std::mutex> g(m_);
      q_.push_back(r);
    }
    cv_.notify_one();
  }
  void close() {
    {
      std::lock_guard<std::mutex> g(m_);
      closed_ = true;
    }
    cv_.notify_all();
  }
  std::optional<std::uint64_t> pop() {
    std::unique_lock<std::mutex> lk(m_);
    cv_.wait(lk, [&] { return closed_ || !q_.empty(); });
    if (q_.empty()) return std::nullopt;
    const std::uint64_t r = q_.front();
    q_.pop_front();
    return r;
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<std::uint64_t> q_;
  bool closed_ = false;
};

// A request's input: a pseudo-random vector whose size and contents depend on
// the request number only.
std::vector<std::int64_t> input_of(std::uint64_t request) {
  std::vector<std::int64_t> v(2000 + (request * 7919) % 6000);
  std::uint64_t z = request * 0x9E3779B97F4A7C15ull + 1;
  for (auto& x : v) {
    z ^= z >> 29;
    z *= 0xBF58476D1CE4E5B9ull;
    x = static_cast<std::int64_t>(z % 1'000'000);
  }
  return v;
}

std::int64_t sum_range(const std::int64_t* a, std::size_t n) {
  fs::charge(n);
  return std::accumulate(a, a + n, std::int64_t{0});
}

// Four chunks: three on threads of their own, one here, then the joins.
std::int64_t parallel_sum(const std::vector<std::int64_t>& v) {
  const std::size_t n = v.size(), q = n / 4;
  std::int64_t part[4] = {};
  fs::thread threads[3];
  for (std::size_t k = 0; k < 3; ++k) threads[k] = fs::thread([&, k] { part[k] = sum_range(v.data() + k * q, q); });
  part[3] = sum_range(v.data() + 3 * q, n - 3 * q);
  for (auto& t : threads) t.join();
  return part[0] + part[1] + part[2] + part[3];
}

// Sorts [a, a + n) charging one unit per comparison.
void counted_sort(std::int64_t* a, std::size_t n) {
  std::uint64_t comparisons = 0;
  std::sort(a, a + n, [&](std::int64_t x, std::int64_t y) {
    ++comparisons;
    return x < y;
  });
  fs::charge(comparisons);
}

// The two halves at once (the lower one on fs::async), then the merge.
void parallel_sort(std::vector<std::int64_t>& v) {
  const std::size_t half = v.size() / 2;
  auto lower = fs::async(std::launch::async, [&] { counted_sort(v.data(), half); });
  counted_sort(v.data() + half, v.size() - half);
  lower.get();
  fs::charge(v.size());
  std::inplace_merge(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(half), v.end());
}

// Handles request r (even: sum, odd: sort) inside the session; prints its
// report's numbers. Returns whether the answer was right.
bool handle(fs::session& s, std::uint64_t r, std::mutex& out) {
  std::vector<std::int64_t> v = input_of(r);
  const bool sum = r % 2 == 0;
  bool right = false;
  const fs::report rep = s.measure(sum ? "sum" : "sort", [&] {
    if (sum) {
      right = parallel_sum(v) == std::accumulate(v.begin(), v.end(), std::int64_t{0});
    } else {
      parallel_sort(v);
      right = std::is_sorted(v.begin(), v.end());
    }
  });
  std::lock_guard<std::mutex> g(out);
  std::cout << "request " << r << " " << (sum ? "sum" : "sort") << ": work " << rep.work() << " span " << rep.span()
            << " burdened_span " << rep.burdened_span() << " spawns " << rep.spawns() << " syncs " << rep.syncs()
            << " diagnostics " << rep.diagnostic_count << "\n";
  return right && rep.diagnostic_count == 0;
}

int run(int argc, char** argv) {
  config cfg;
  try {
    cfg = parse(argc, argv);
  } catch (const usage_error& e) {
    std::cerr << "server: " << e.what() << "\n";
    return 2;
  }
  fs::options opt;
  opt.clock = cfg.clock;
  fs::snapshot_options snap;
  snap.path = cfg.snapshot;
  snap.every = std::chrono::milliseconds(cfg.every_ms);

  std::uint64_t wrong = 0;
  {
    fs::session s("server", opt, snap);  // throws on a snapshot path without a known extension
    s.write_snapshot();  // an empty one now: a path that cannot be written is an error before any request
    request_queue queue;
    std::thread producer([&] {
      for (std::uint64_t r = 0; r < cfg.requests; ++r) queue.push(r);
      queue.close();
    });
    std::mutex out, tally;
    std::vector<std::thread> workers;
    for (unsigned w = 0; w < cfg.workers; ++w)
      workers.emplace_back([&] {
        while (const auto r = queue.pop())
          if (!handle(s, *r, out)) {
            std::lock_guard<std::mutex> g(tally);
            ++wrong;
          }
      });
    producer.join();
    for (auto& w : workers) w.join();
    // The final snapshot is written when `s` ends; writing it here as well
    // makes a failure an error (the destructor can only print it, and does not
    // print an error the program was given).
    s.write_snapshot();
  }
  if (wrong) {
    std::cerr << "server: " << wrong << " request(s) answered wrongly or with a diagnostic\n";
    return 1;
  }
  // The session took the path, so its format is one of them (in any case).
  if (fs::detail::report_format_of(cfg.snapshot) == fs::detail::report_format::json) {
    const fs::report r = fs::read_report(cfg.snapshot);
    std::cout << "snapshot " << cfg.snapshot << ": requests " << r.root().instances << " work " << r.work() << " span "
              << r.span() << " parallelism " << r.parallelism() << "\n";
  } else {
    std::cout << "snapshot " << cfg.snapshot << " written\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const fs::error& e) {
    std::cerr << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "server: " << e.what() << "\n";
    return 1;
  }
}
