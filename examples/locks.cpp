// locks: a parallel loop whose items all go through one shared queue under an
// fs::mutex — lock blame and idle blame on a recorded run (docs/blame.md).
//
//   locks [N] [--threads T] [--out DIR]
//
// N items (default 20,000) are processed by a divide-and-conquer loop that runs
// its halves on std::threads down to T leaves. Each item computes a value
// (outside the lock), then files it in a sorted queue under the lock: the
// insertion moves half the queue on average and a checksum reads that half
// again, so the critical section grows with the queue and the threads queue up
// behind each other. After the loop
// the measured function drains the queue under the same lock, alone: that
// hold is on the critical path.
//
// The report (options.record is on) shows the lock table — the waits at the
// filing site, charged to the site that held the lock ("caused") — the holds
// on the critical path, and the parallelism over time with its idle blame.
// With --out DIR it also writes DIR/locks.json, .csv, .txt, .call_sites.csv,
// .spawn_sites.csv, .locks.csv, .parallelism.csv, .threads.csv,
// .idle_blame.csv and .html, all or none.
//
// Exit status: 0 computed and reported; 1 wrong result or forkscale found misuse;
// 2 bad command line or the report files cannot be written.
#include <algorithm>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <forkscale/detail/util/atomic_file.hpp>  // write_files_atomically: the --out files
#include <forkscale/forkscale.hpp>
#include <forkscale/study/html.hpp>

namespace fs = forkscale;

namespace {

struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct config {
  std::uint64_t n = 20000;
  unsigned threads = 4;
  std::string out_dir;
};

std::uint64_t positive(const std::string& text, std::uint64_t max, const std::string& what) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
    throw usage_error(what + " must be a positive integer, not '" + text + "'");
  if (text.size() > 12 || std::stoull(text) == 0 || std::stoull(text) > max)
    throw usage_error(what + " must be between 1 and " + std::to_string(max) + ", not '" + text + "'");
  return std::stoull(text);
}

config parse(int argc, char** argv) {
  config c;
  bool have_n = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--threads" || a == "--out") {
      if (i + 1 >= argc) throw usage_error(a + " needs a value");
      const std::string v = argv[++i];
      if (a == "--threads") c.threads = static_cast<unsigned>(positive(v, 256, "--threads"));
      if (a == "--out") {
        if (v.empty()) throw usage_error("--out needs a directory name");
        c.out_dir = v;
      }
    } else if (!a.empty() && a[0] == '-') {
      throw usage_error("unknown option '" + a + "' (usage: locks [N] [--threads T] [--out DIR])");
    } else if (have_n) {
      throw usage_error("one item count only, not '" + a + "' too");
    } else {
      c.n = positive(a, 10000000, "N");
      have_n = true;
    }
  }
  return c;
}

// The shared queue: values kept sorted, filed and drained under one lock.
struct sorted_queue {
  fs::mutex lock{"queue"};
  std::vector<std::uint64_t> values;

  std::uint64_t checksum = 0;

  void file(std::uint64_t v) {
    fs::lock_guard g(lock);  // this line is the filing site
    const auto at = values.insert(std::upper_bound(values.begin(), values.end(), v), v);
    // Too much work under the lock: a checksum of the values after the new one.
    for (auto it = at; it != values.end(); ++it) checksum = checksum * 31 + *it;
  }
  std::uint64_t drain() {
    fs::lock_guard g(lock);  // the drain: alone, at the end
    std::uint64_t sum = 0;
    for (std::uint64_t v : values) sum += v;
    values.clear();
    return sum;
  }
};

// Some arithmetic per item, outside the lock.
std::uint64_t compute(std::uint64_t i) {
  std::uint64_t x = i * 0x9E3779B97F4A7C15ull + 1;
  for (int k = 0; k < 100; ++k) x ^= x << 13, x ^= x >> 7, x ^= x << 17;
  return x % 1000003;
}

// The loop over [lo, hi): halves on threads while there are leaves to spare.
void loop(sorted_queue& q, std::uint64_t lo, std::uint64_t hi, unsigned leaves) {
  if (leaves <= 1 || hi - lo < 2) {
    for (std::uint64_t i = lo; i < hi; ++i) q.file(compute(i));
    return;
  }
  const std::uint64_t mid = lo + (hi - lo) / 2;
  fs::join_handle h;
  std::thread t(fs::spawn(h, [&q, lo, mid, leaves] { loop(q, lo, mid, leaves / 2); }));
  {
    fs::call_site cs;
    loop(q, mid, hi, leaves - leaves / 2);
  }
  fs::sync_point sp(h);
  t.join();
}

bool write_reports(const fs::report& rep, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    std::cerr << "locks: cannot create directory '" << dir << "': " << ec.message() << "\n";
    return false;
  }
  const std::string b = (std::filesystem::path(dir) / "locks").string();
  try {
    fs::detail::write_files_atomically({{b + ".json", rep.to_json()},
                                        {b + ".csv", rep.to_csv()},
                                        {b + ".txt", rep.to_text()},
                                        {b + ".call_sites.csv", rep.call_sites_csv()},
                                        {b + ".spawn_sites.csv", rep.spawn_sites_csv()},
                                        {b + ".locks.csv", rep.locks_csv()},
                                        {b + ".parallelism.csv", fs::parallelism_csv(rep)},
                                        {b + ".threads.csv", fs::thread_times_csv(rep)},
                                        {b + ".idle_blame.csv", fs::idle_blame_csv(rep)},
                                        {b + ".html", fs::to_html(rep)}});
  } catch (const fs::error& e) {
    std::cerr << e.what() << "\n";
    return false;
  }
  return true;
}

int run(int argc, char** argv) {
  config cfg;
  try {
    cfg = parse(argc, argv);
  } catch (const usage_error& e) {
    std::cerr << "locks: " << e.what() << "\n";
    return 2;
  }
  sorted_queue q;
  std::uint64_t sum = 0;
  fs::options opt;
  opt.record = true;
  opt.backend = fs::backend::std_thread;  // its halves run on std::threads: their calibrated burden, if any
  const fs::report rep = fs::measure(
      "locks",
      [&] {
        loop(q, 0, cfg.n, cfg.threads);
        sum = q.drain();
      },
      opt);
  std::uint64_t expected = 0;
  for (std::uint64_t i = 0; i < cfg.n; ++i) expected += compute(i);
  if (sum != expected) {
    std::cerr << "locks: the queue held " << sum << ", expected " << expected << "\n";
    return 1;
  }
  std::cout << "locks: " << cfg.n << " items on " << cfg.threads << " leaves, sum " << sum << "\n\n" << rep;
  if (!cfg.out_dir.empty() && !write_reports(rep, cfg.out_dir)) return 2;
  if (rep.diagnostic_count != 0) {
    std::cerr << "locks: forkscale reported " << rep.diagnostic_count << " diagnostic(s), listed above\n";
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "locks: " << e.what() << "\n";
    return 1;
  }
}
