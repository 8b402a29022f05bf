// tests/run/threads_misc.cpp: a std::thread program, with nothing of
// forkscale, for the tests of libforkscale_threads.so (tools/test_cli_run.cpp):
// two threads take one std::mutex 1,000 times each, a detached thread is never
// joined (main waits until it has ended: its thread_local's destructor runs
// after its function), and a worker waits on a condition variable, as a
// pool's does, until main sees it waiting.
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

namespace {

std::mutex counter_lock;
long counter = 0;

void add(int n) {
  for (int i = 0; i < n; ++i) {
    std::lock_guard<std::mutex> g(counter_lock); /* lock:add */
    ++counter;
  }
}

std::atomic<bool> left_ended{false};
struct mark_ended {
  ~mark_ended() { left_ended.store(true); }
};

}  // namespace

int main() {
  std::thread a(add, 1000), b(add, 1000);
  a.join();
  b.join();

  std::thread left([] {
    thread_local mark_ended m;
    (void)&m;
  });
  left.detach();

  std::mutex m;
  std::condition_variable cv;
  bool waiting = false, go = false;
  std::thread worker([&] {
    std::unique_lock<std::mutex> l(m);
    waiting = true;
    cv.wait(l, [&] { return go; });
  });
  for (bool seen = false; !seen; std::this_thread::yield()) {
    std::lock_guard<std::mutex> g(m);  // held by the worker until it waits
    if (waiting) go = seen = true;
  }
  cv.notify_one();
  worker.join();

  while (!left_ended.load()) std::this_thread::yield();
  std::printf("counter %ld\n", counter);
  return 0;
}
