// Lock blame (mutex.hpp): fs::mutex and the forkscale lock guards count
// acquisitions and contended acquisitions per lock and site, charge each wait to
// the site that held the lock when the wait began, keep holds in the record,
// and mark holds on the critical path.
//
// Threads are ordered so that who waits for whom is known: a holder keeps the
// lock until the waiters are seen waiting (fs::mutex::waiting(), a count kept
// by the contended path), so the counts and the blame are exact; times are
// never asserted.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <forkscale/detail/blame/lock_rows.hpp>  // locks_on_critical_path, critical_holds_by_site
#include <forkscale/forkscale.hpp>
#include <forkscale/read_report.hpp>
#include <memory>
#include <shared_mutex>
#include <sstream>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

namespace fs = forkscale;

namespace {

fs::options cost(bool record = false) {
  fs::options o;
  o.clock = fs::clock_kind::cost;
  o.burden = 0;
  o.record = record;
  return o;
}

std::string here(int line) { return "test_locks.cpp:" + std::to_string(line); }

const fs::lock_site_profile* row(const fs::report& rep, const std::string& lock, const std::string& name) {
  for (const auto& l : rep.locks)
    if (l.lock == lock && l.name == name) return &l;
  return nullptr;
}

// Yields until `n` measured acquisitions wait for `m`.
void wait_for_waiters(const fs::mutex& m, std::uint32_t n) {
  while (m.waiting() < n) std::this_thread::yield();
}

TEST(Locks, UncontendedAcquisitionsPerSite) {
  fs::mutex m{"queue"};
  int line_guard = 0, line_unique = 0;
  const fs::report rep = fs::measure(
      "locks",
      [&] {
        for (int i = 0; i < 3; ++i) {
          line_guard = __LINE__ + 1;  // the guard on the next line
          fs::lock_guard g(m);
        }
        { std::lock_guard<fs::mutex> g(m); }  // lock() without a site: the mutex's name
        {
          line_unique = __LINE__ + 1;  // the guard on the next line
          fs::unique_lock u(m);
          u.unlock();
          u.lock();
        }
        EXPECT_TRUE(m.try_lock());
        m.unlock();
      },
      cost());
  ASSERT_EQ(rep.locks.size(), 3u);
  const auto* guard = row(rep, "queue", here(line_guard));
  const auto* unique = row(rep, "queue", here(line_unique));
  const auto* plain = row(rep, "queue", "queue");
  ASSERT_NE(guard, nullptr);
  ASSERT_NE(unique, nullptr);
  ASSERT_NE(plain, nullptr);
  EXPECT_EQ(guard->acquisitions, 3u);
  EXPECT_EQ(unique->acquisitions, 2u);
  EXPECT_EQ(plain->acquisitions, 2u);  // the std::lock_guard and try_lock()
  for (const auto& l : rep.locks) {
    EXPECT_EQ(l.contended, 0u);
    EXPECT_EQ(l.wait_ns, 0u);
    EXPECT_EQ(l.blamed_waits, 0u);
    EXPECT_EQ(l.critical_holds, 0u);  // no record
  }
  EXPECT_EQ(guard->function, "operator()");  // the lambda
  EXPECT_TRUE(rep.locks_csv().find("queue,test_locks.cpp:") != std::string::npos) << rep.locks_csv();
}

TEST(Locks, NothingIsCountedOutsideAMeasurement) {
  fs::mutex m{"outside"};
  { fs::lock_guard g(m); }
  std::thread t([&] { fs::lock_guard g(m); });
  t.join();
  fs::report rep;
  // Held across the end of a measurement: counted as an acquisition, its hold
  // ends outside and is not.
  std::unique_ptr<fs::unique_lock<fs::mutex>> held;
  rep = fs::measure(
      "held", [&] { held = std::make_unique<fs::unique_lock<fs::mutex>>(m); }, cost());
  held.reset();
  ASSERT_EQ(rep.locks.size(), 1u);
  EXPECT_EQ(rep.locks[0].acquisitions, 1u);
  EXPECT_EQ(rep.locks[0].hold_ns, 0u);
  const fs::report none = fs::measure(
      "none", [] {}, cost());
  EXPECT_TRUE(none.locks.empty());
  EXPECT_EQ(none.locks_text(), "No locks in this report.\n");
}

// The root task holds the lock (site H) and spawns a task on another thread
// that takes it (site W); the root releases once the task waits. W's one
// acquisition is contended and its wait is blamed on H.
TEST(Locks, AWaitIsBlamedOnTheHolder) {
  fs::mutex m{"state"};
  int line_h = 0, line_w = 0;
  const fs::report rep = fs::measure(
      "blame",
      [&] {
        fs::join_handle h;
        std::unique_ptr<std::thread> t;
        {
          line_h = __LINE__ + 1;  // the guard on the next line
          fs::lock_guard g(m);
          t = std::make_unique<std::thread>(fs::spawn(h, [&] {
            line_w = __LINE__ + 1;  // the guard on the next line
            fs::lock_guard w(m);
          }));
          wait_for_waiters(m, 1);
        }
        fs::sync_point sp(h);
        t->join();
      },
      cost());
  const auto* holder = row(rep, "state", here(line_h));
  const auto* waiter = row(rep, "state", here(line_w));
  ASSERT_NE(holder, nullptr);
  ASSERT_NE(waiter, nullptr);
  EXPECT_EQ(holder->acquisitions, 1u);
  EXPECT_EQ(holder->contended, 0u);
  EXPECT_EQ(holder->blamed_waits, 1u);
  EXPECT_EQ(waiter->acquisitions, 1u);
  EXPECT_EQ(waiter->contended, 1u);
  EXPECT_EQ(waiter->blamed_waits, 0u);
  EXPECT_EQ(rep.locks.front().name, here(line_w)) << "the waiting site comes first (by total wait)";
  EXPECT_EQ(holder->blamed_wait_ns, waiter->wait_ns) << "one wait, one holder: the same time";
}

// Two waiters queue behind one holder: both waits began while it held the
// lock, so both are its blame, whoever of the two got the lock first.
TEST(Locks, EveryWaitThatBeganUnderAHolderIsItsBlame) {
  fs::mutex m{"pool"};
  int line_h = 0, line_w = 0;
  const fs::report rep = fs::measure(
      "queue",
      [&] {
        fs::join_handle h1, h2;
        std::unique_ptr<std::thread> t1, t2;
        // Set here, not in the lambda: the two waiter threads would both write it.
        line_w = __LINE__ + 1;  // the guard on the next line
        auto waiter = [&] { fs::lock_guard w(m); };
        {
          line_h = __LINE__ + 1;  // the guard on the next line
          fs::lock_guard g(m);
          t1 = std::make_unique<std::thread>(fs::spawn(h1, waiter));
          t2 = std::make_unique<std::thread>(fs::spawn(h2, waiter));
          wait_for_waiters(m, 2);
        }
        {
          fs::sync_point sp(h1);
          t1->join();
        }
        fs::sync_point sp(h2);
        t2->join();
      },
      cost());
  const auto* holder = row(rep, "pool", here(line_h));
  const auto* waiters = row(rep, "pool", here(line_w));
  ASSERT_NE(holder, nullptr);
  ASSERT_NE(waiters, nullptr);
  EXPECT_EQ(waiters->acquisitions, 2u);
  EXPECT_EQ(waiters->contended, 2u);
  EXPECT_EQ(holder->blamed_waits, 2u);
  EXPECT_EQ(waiters->blamed_waits, 0u);
}

// Any lockable: a std::mutex and a std::shared_mutex behind fs::lock_guard,
// named by the guard's line; the waits are blamed on the holder's line.
TEST(Locks, AnyLockableBehindTheGuards) {
  std::mutex sm;
  std::shared_mutex shm;
  int line_h = 0, line_w = 0, line_s = 0;
  const fs::report rep = fs::measure(
      "lockables",
      [&] {
        {
          line_s = __LINE__ + 1;  // the guard on the next line
          fs::lock_guard g(shm);
        }
        fs::join_handle h;
        std::unique_ptr<std::thread> t;
        {
          line_h = __LINE__ + 1;  // the guard on the next line
          fs::lock_guard g(sm);
          t = std::make_unique<std::thread>(fs::spawn(h, [&] {
            line_w = __LINE__ + 1;  // the guard on the next line
            fs::unique_lock w(sm);
          }));
          while (fs::detail::lock_waiters(fs::detail::shared_holder_slot(&sm)) < 1) std::this_thread::yield();
        }
        fs::sync_point sp(h);
        t->join();
      },
      cost());
  const auto* shared = row(rep, here(line_s), here(line_s));
  const auto* holder = row(rep, here(line_h), here(line_h));
  const auto* waiter = row(rep, here(line_w), here(line_w));
  ASSERT_NE(shared, nullptr);
  ASSERT_NE(holder, nullptr);
  ASSERT_NE(waiter, nullptr);
  EXPECT_EQ(shared->acquisitions, 1u);
  EXPECT_EQ(waiter->contended, 1u);
  EXPECT_EQ(holder->blamed_waits, 1u);
}

// A failed try_lock is no acquisition.
TEST(Locks, AFailedTryCountsNothing) {
  fs::mutex m{"tried"};
  std::atomic<bool> held{false}, done{false};
  const fs::report rep = fs::measure(
      "try",
      [&] {
        fs::join_handle h;
        std::thread t(fs::spawn(h, [&] {
          fs::lock_guard g(m);
          held = true;
          while (!done) std::this_thread::yield();
        }));
        while (!held) std::this_thread::yield();
        EXPECT_FALSE(m.try_lock());
        fs::unique_lock u(m, std::try_to_lock);
        EXPECT_FALSE(u.owns_lock());
        done = true;
        fs::sync_point sp(h);
        t.join();
      },
      cost());
  std::uint64_t acquisitions = 0;
  for (const auto& l : rep.locks) acquisitions += l.acquisitions;
  EXPECT_EQ(acquisitions, 1u);
}

TEST(Locks, UniqueLockBehavesAsTheStdOne) {
  fs::mutex m{"u"};
  fs::unique_lock<fs::mutex> empty;
  EXPECT_THROW(empty.lock(), std::system_error);
  fs::unique_lock a(m, std::defer_lock);
  EXPECT_FALSE(a.owns_lock());
  EXPECT_THROW(a.unlock(), std::system_error);
  a.lock();
  EXPECT_THROW(a.lock(), std::system_error);
  fs::unique_lock b(std::move(a));
  EXPECT_TRUE(b.owns_lock());
  EXPECT_FALSE(a.owns_lock());
  EXPECT_EQ(b.mutex(), &m);
  fs::mutex* released = b.release();
  EXPECT_EQ(released, &m);
  EXPECT_FALSE(b.owns_lock());
  fs::unique_lock c(m, std::adopt_lock);
  EXPECT_TRUE(c.owns_lock());
  c.unlock();
  // With std::condition_variable_any: the wait for the condition unlocks it.
  std::condition_variable_any cv;
  bool ready = false;
  std::thread t([&] {
    fs::lock_guard g(m);
    ready = true;
    cv.notify_one();
  });
  {
    fs::unique_lock u(m);
    cv.wait(u, [&] { return ready; });
    EXPECT_TRUE(u.owns_lock());
  }
  t.join();
}

long charged_child(fs::mutex& m) {
  fs::lock_guard g(m);
  fs::charge(1);
  return 1;
}

// Recording: holds are in the record with their strands, and a hold in the
// critical path's strands is marked. The root's own strands carry the span
// (1,000 units against the child's 1), so the hold of `hot` (taken by the
// root) is on the critical path and the hold of `cold` (by the child) is not.
TEST(Locks, RecordedHoldsAndTheCriticalPath) {
  fs::mutex hot{"hot"}, cold{"cold"};
  const fs::report rep = fs::measure(
      "critical",
      [&] {
        fs::join_handle h;
        std::thread t(fs::spawn(h, [&] { charged_child(cold); }));
        {
          fs::lock_guard g(hot);
          fs::charge(1000);
        }
        fs::sync_point sp(h);
        t.join();
      },
      cost(true));
  ASSERT_TRUE(rep.record);
  const fs::execution_record& r = *rep.record;
  ASSERT_EQ(r.locks.size(), 2u);
  for (const fs::record_lock& l : r.locks) {
    ASSERT_GE(l.strand, 0);
    ASSERT_GE(l.last_strand, 0);
    const fs::record_strand& s = r.strands[static_cast<std::size_t>(l.strand)];
    EXPECT_EQ(s.thread, l.thread);
    EXPECT_LE(s.start_ns, l.wait_start_ns);
    EXPECT_LE(l.wait_start_ns, l.acquired_ns);
    EXPECT_LE(l.acquired_ns, l.released_ns);
    EXPECT_LE(l.released_ns, r.strands[static_cast<std::size_t>(l.last_strand)].end_ns);
    EXPECT_FALSE(l.contended);
    EXPECT_EQ(l.holder_site, -1);
  }
  const fs::lock_site_profile* h = nullptr;
  const fs::lock_site_profile* c = nullptr;
  for (const auto& l : rep.locks) (l.lock == "hot" ? h : c) = &l;
  ASSERT_NE(h, nullptr);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(h->critical_holds, 1u);
  EXPECT_EQ(c->critical_holds, 0u);
  EXPECT_EQ(c->critical_hold_ns, 0u);
}

// ---- the critical-path call-out on a hand-made record --------------------------

// Thread 0 runs s0 [0,10] (critical), s1 [10,20] (not), s2 [20,30] (critical);
// thread 1 runs s3 [0,30] (not critical).
//  - hold 0: in s0, wait [2,4], hold [4,8]: on the path, hold 4, wait 2;
//  - hold 1: in s1, [12,15]: not on the path;
//  - hold 2: from s1 to s2 (a strand boundary inside the critical section),
//    wait [15,16], hold [16,25]: on the path through s2, hold [20,25] = 5, wait 0;
//  - hold 3: in no strand (taken inside a sync): never on the path;
//  - hold 4: thread 1, in s3: not on the path.
// Holds 0 and 2 are the same (lock, site): 2 holds, 9 ns of hold, 2 of wait.
TEST(LocksByHand, HoldsOnTheCriticalPath) {
  fs::execution_record r;
  r.threads.resize(2);
  const auto strand = [&](std::uint32_t thread, std::uint64_t start, std::uint64_t end, bool critical) {
    fs::record_strand s;
    s.thread = thread;
    s.start_ns = start;
    s.end_ns = end;
    s.critical = critical;
    r.strands.push_back(s);
  };
  strand(0, 0, 10, true);
  strand(1, 0, 30, false);  // s3, listed second: a thread's strands need not be adjacent
  strand(0, 10, 20, false);
  strand(0, 20, 30, true);
  const auto hold = [&](std::uint32_t thread, std::int64_t first, std::int64_t last, std::uint64_t w, std::uint64_t a,
                        std::uint64_t rel, std::uint32_t site) {
    fs::record_lock l;
    l.thread = thread;
    l.lock = 0;
    l.site = site;
    l.strand = first;
    l.last_strand = last;
    l.wait_start_ns = w;
    l.acquired_ns = a;
    l.released_ns = rel;
    r.locks.push_back(l);
  };
  hold(0, 0, 0, 2, 4, 8, 1);
  hold(0, 2, 2, 12, 12, 15, 2);
  hold(0, 2, 3, 15, 16, 25, 1);
  hold(0, -1, -1, 26, 26, 27, 1);
  hold(1, 1, 1, 5, 5, 9, 1);
  const std::vector<fs::detail::lock_on_critical_path> on = fs::detail::locks_on_critical_path(r);
  ASSERT_EQ(on.size(), 5u);
  EXPECT_TRUE(on[0].on_path);
  EXPECT_EQ(on[0].hold_ns, 4u);
  EXPECT_EQ(on[0].wait_ns, 2u);
  EXPECT_FALSE(on[1].on_path);
  EXPECT_TRUE(on[2].on_path);
  EXPECT_EQ(on[2].hold_ns, 5u);
  EXPECT_EQ(on[2].wait_ns, 0u);
  EXPECT_FALSE(on[3].on_path);
  EXPECT_FALSE(on[4].on_path);
  const auto by_site = fs::detail::critical_holds_by_site(r);
  ASSERT_EQ(by_site.size(), 1u);
  const auto& c = by_site.begin()->second;
  EXPECT_EQ(by_site.begin()->first, fs::detail::lock_table::key(0, 1));
  EXPECT_EQ(c.holds, 2u);
  EXPECT_EQ(c.hold_ns, 9u);
  EXPECT_EQ(c.wait_ns, 2u);
}

// ---- text ------------------------------------------------------------------------

fs::report with_locks();

// Long names and large numbers still fit in 80 columns; a lock is called out
// when its row has holds on the critical path.
TEST(LocksText, FitsAndCallsOutCriticalHolds) {
  fs::report rep = with_locks();
  rep.locks[0].lock = std::string(60, 'q');
  rep.locks[0].function = "a::very::long::namespace::and_function_name<with, template, arguments>";
  rep.locks[0].wait_ns = 18446744073709551615ull;
  const std::string text = rep.locks_text();
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 80u) << line;
  EXPECT_NE(text.find("On the critical path:"), std::string::npos) << text;
  EXPECT_NE(text.find("qqq at q.cpp:12 in"), std::string::npos) << text;
  for (auto& l : rep.locks) l.critical_holds = 0;
  EXPECT_EQ(rep.locks_text().find("On the critical path"), std::string::npos) << rep.locks_text();
  EXPECT_NE(rep.to_text().find("Locks (by total wait"), std::string::npos);
}

// ---- JSON ------------------------------------------------------------------------

fs::report with_locks() {
  fs::report rep;
  rep.label = "locks";
  rep.regions.emplace_back();
  fs::lock_site_profile l;
  l.lock = "queue";
  l.name = "q.cpp:12";
  l.file = "src/q.cpp";
  l.line = 12;
  l.function = "push";
  l.acquisitions = 10;
  l.contended = 4;
  l.wait_ns = 900;
  l.max_wait_ns = 400;
  l.hold_ns = 5000;
  l.max_hold_ns = 800;
  l.blamed_wait_ns = 300;
  l.blamed_waits = 2;
  l.critical_holds = 1;
  l.critical_hold_ns = 700;
  l.critical_wait_ns = 50;
  rep.locks.push_back(l);
  l.lock = l.name = "=evil, \"tag\"";
  l.tag = l.lock;
  rep.locks.push_back(l);
  return rep;
}

TEST(LocksJson, RoundTrip) {
  const fs::report rep = with_locks();
  const fs::report back = fs::from_json(rep.to_json());
  ASSERT_EQ(back.locks.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    const auto &a = rep.locks[i], &b = back.locks[i];
    EXPECT_EQ(a.lock, b.lock);
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.file, b.file);
    EXPECT_EQ(a.line, b.line);
    EXPECT_EQ(a.function, b.function);
    EXPECT_EQ(a.tag, b.tag);
    EXPECT_EQ(a.acquisitions, b.acquisitions);
    EXPECT_EQ(a.contended, b.contended);
    EXPECT_EQ(a.wait_ns, b.wait_ns);
    EXPECT_EQ(a.max_wait_ns, b.max_wait_ns);
    EXPECT_EQ(a.hold_ns, b.hold_ns);
    EXPECT_EQ(a.max_hold_ns, b.max_hold_ns);
    EXPECT_EQ(a.blamed_wait_ns, b.blamed_wait_ns);
    EXPECT_EQ(a.blamed_waits, b.blamed_waits);
    EXPECT_EQ(a.critical_holds, b.critical_holds);
    EXPECT_EQ(a.critical_hold_ns, b.critical_hold_ns);
    EXPECT_EQ(a.critical_wait_ns, b.critical_wait_ns);
  }
  EXPECT_EQ(back.to_json(), rep.to_json());
}

TEST(LocksJson, InconsistentRowsAreRefused) {
  std::string text = with_locks().to_json();
  const std::string from = "\"contended\": 4,", to = "\"contended\": 40,";
  ASSERT_NE(text.find(from), std::string::npos) << text;
  text.replace(text.find(from), from.size(), to);
  try {
    fs::from_json(text);
    FAIL() << "accepted contended > acquisitions";
  } catch (const fs::error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("forkscale: invalid report JSON"), std::string::npos) << m;
    EXPECT_NE(m.find("locks[0].contended"), std::string::npos) << m;
  }
}

TEST(LocksJson, OlderFilesHaveNoLocks) {
  std::string text = fs::report{}.to_json();
  const std::string key = "\"locks\": [],";
  ASSERT_NE(text.find(key), std::string::npos) << text;
  text.erase(text.find(key), key.size());
  EXPECT_TRUE(fs::from_json(text).locks.empty());
}

}  // namespace
