// detail/session/core.hpp: what an fs::session holds — the merged totals of the
// measurements that finished, the count of those still running, the records
// kept, and the thread that writes a snapshot every period. Nothing here is on
// the engine's event path: a measurement meets the session once when it starts
// and once when it ends.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "../../clock.hpp"
#include "../../config.hpp"
#include "../../record.hpp"
#include "../../report.hpp"
#include "../util/env.hpp"
#include "handle.hpp"
#include "merger.hpp"
#include "snapshot_file.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

class session_core {
 public:
  using record_entry = std::pair<std::string, std::shared_ptr<const execution_record>>;

  // `path` empty: snapshots are only returned, never written by the session.
  // `every` zero: no periodic writer. Throws forkscale::error on a bad path or
  // period (before any thread starts).
  session_core(std::string label, clock_kind clock, std::string path, std::chrono::nanoseconds every, bool rotate)
      : label_(std::move(label)), merger_(label_), path_(std::move(path)), every_(every), rotate_(rotate) {
    const std::string head = "forkscale: session '" + printable_path(label_) + "': ";
    if (every_.count() < 0) throw error(head + "snapshot_options::every is negative");
    if (every_.count() > 0 && path_.empty())
      throw error(head + "snapshot_options::every is set but snapshot_options::path is empty");
    if (!path_.empty()) format_ = report_format_of(path_);
    // The unit and clock a snapshot taken before anything finished states.
    const clock_kind chosen = clock_option(clock);  // FORKSCALE_CLOCK where clock is automatic
    const clock_kind k = chosen == clock_kind::automatic ? resolve_default() : chosen;
    empty_unit_ = k == clock_kind::cost ? "units" : "ns";
    empty_clock_ = k;
    if (every_.count() > 0) writer_ = std::thread([this] { write_periodically(); });
  }
  session_core(const session_core&) = delete;
  session_core& operator=(const session_core&) = delete;

  // Stops the periodic writer, then writes the final snapshot (when there is a
  // path). Never throws: a failure is printed (once per distinct error).
  ~session_core() {
    if (writer_.joinable()) {
      {
        std::lock_guard<std::mutex> g(m_);
        stop_ = true;
      }
      wake_.notify_all();
      writer_.join();
    }
    if (!path_.empty()) write_quietly();
  }

  // A measurement starts (counted as running until finish or abandon).
  void start() {
    std::lock_guard<std::mutex> g(m_);
    ++running_;
  }
  // ... and ends with its report, which joins the totals.
  void finish(const std::string& label, const report& rep) {
    std::lock_guard<std::mutex> g(m_);
    --running_;
    ++finished_;
    merger_.add(rep);
    if (rep.record) records_.emplace_back(label, rep.record);
  }
  // ... or ends without one (its region could not be opened).
  void abandon() noexcept {
    std::lock_guard<std::mutex> g(m_);
    --running_;
  }
  // A measurement made inside another one: a region of that one, not added.
  void nested() {
    std::lock_guard<std::mutex> g(m_);
    ++nested_;
  }

  std::uint64_t finished() const {
    std::lock_guard<std::mutex> g(m_);
    return finished_;
  }
  std::uint64_t running() const {
    std::lock_guard<std::mutex> g(m_);
    return running_;
  }
  std::vector<record_entry> records() const {
    std::lock_guard<std::mutex> g(m_);
    return records_;
  }
  const std::string& label() const noexcept { return label_; }

  // The totals of the measurements finished so far, as one report. With
  // rotation, the records kept so far are dropped.
  report snapshot() {
    std::lock_guard<std::mutex> g(m_);
    return snapshot_locked();
  }

  // The snapshot, written to `path` (the session's own when empty). Throws
  // forkscale::error on failure; the session prints that error no more (the
  // caller has it). The session's write-failure notes are cleared once a
  // snapshot that carried them is written.
  void write(const std::string& path) {
    try {
      write_now(path);
    } catch (const std::exception& e) {
      std::lock_guard<std::mutex> g(m_);
      printed_.insert(e.what());
      throw;
    }
  }

 private:
  struct failure {
    std::string message;
    std::uint64_t times = 0;
  };

  void write_now(const std::string& path) {
    const std::string& to = path.empty() ? path_ : path;
    if (to.empty())
      throw error("forkscale: session '" + printable_path(label_) + "': no snapshot path (snapshot_options::path)");
    const report_format f = path.empty() ? format_ : report_format_of(path);
    std::lock_guard<std::mutex> one_writer(write_m_);
    std::size_t carried = 0;
    report r;
    {
      std::lock_guard<std::mutex> g(m_);
      r = snapshot_locked();
      carried = failures_.size();
    }
    write_snapshot_file(r, to, f);
    std::lock_guard<std::mutex> g(m_);
    failures_.erase(failures_.begin(), failures_.begin() + static_cast<std::ptrdiff_t>(carried));
  }

  report snapshot_locked() {
    std::vector<diagnostic> notes;
    const std::string where = "session '" + label_ + "'";
    if (running_ > 0)
      notes.push_back(diagnostic{where, std::to_string(running_) +
                                            " measurement(s) still running are not included (the snapshot has the " +
                                            std::to_string(finished_) + " that finished)"});
    if (nested_ > 0)
      notes.push_back(diagnostic{where, std::to_string(nested_) +
                                            " measurement(s) made inside another measurement are not included (each "
                                            "is a region of the measurement around it)"});
    for (const failure& f : failures_)
      notes.push_back(
          diagnostic{where, "a snapshot could not be written (" + std::to_string(f.times) + " time(s)): " + f.message});
    report r = merger_.result(notes, empty_unit_, empty_clock_);
    if (rotate_) records_.clear();
    return r;
  }

  // Writes the snapshot to the session's path; a failure becomes a note of the
  // next snapshots and one line on stderr per distinct message.
  void write_quietly() noexcept {
    std::string message;
    try {
      write_now(std::string());
      return;
    } catch (const std::exception& e) {
      message = e.what();
    } catch (...) {
      message = "forkscale: unknown error";
    }
    try {
      std::lock_guard<std::mutex> g(m_);
      bool known = false;
      for (failure& f : failures_)
        if (f.message == message) {
          ++f.times;
          known = true;
        }
      if (!known) failures_.push_back(failure{message, 1});
      if (!printed_.insert(message).second) return;
    } catch (...) {
      // Out of memory while noting it: the line below is all there is.
    }
    std::fprintf(stderr, "%s (session '%s'; the same error is not printed again)\n", message.c_str(),
                 printable_path(label_).c_str());
  }

  // The periodic writer: one snapshot every period, until stopped. Periods
  // missed while a write took longer are skipped, not caught up.
  void write_periodically() {
    auto next = std::chrono::steady_clock::now() + every_;
    std::unique_lock<std::mutex> lk(m_);
    for (;;) {
      if (wake_.wait_until(lk, next, [this] { return stop_; })) return;
      lk.unlock();
      write_quietly();
      lk.lock();
      const auto now = std::chrono::steady_clock::now();
      next += every_;
      if (next <= now) next = now + every_;
    }
  }

  const std::string label_;
  mutable std::mutex m_;  // guards everything below but the constants
  report_merger merger_;
  std::uint64_t running_ = 0, finished_ = 0, nested_ = 0;
  std::vector<record_entry> records_;
  std::vector<failure> failures_;  // write failures not yet carried into a written snapshot
  std::set<std::string> printed_;  // messages already printed on stderr
  const std::string path_;
  report_format format_ = report_format::json;
  const std::chrono::nanoseconds every_;
  const bool rotate_;
  const char* empty_unit_ = "units";
  clock_kind empty_clock_ = clock_kind::cost;
  std::mutex write_m_;  // one write at a time (write() clears the notes it carried)
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread writer_;  // last: started when everything above is ready
};

static_assert(merged_kept_diagnostics == max_kept_diagnostics,
              "a merged report keeps as many diagnostics as a measurement");

FORKSCALE_INLINE session_handle::session_handle(std::string label, clock_kind clock, std::string path,
                                                std::chrono::nanoseconds every, bool rotate)
    : core_(std::make_unique<session_core>(std::move(label), clock, std::move(path), every, rotate)) {}
FORKSCALE_INLINE session_handle::~session_handle() = default;
FORKSCALE_INLINE void session_handle::start() { core_->start(); }
FORKSCALE_INLINE void session_handle::finish(const std::string& label, const report& rep) { core_->finish(label, rep); }
FORKSCALE_INLINE void session_handle::abandon() noexcept { core_->abandon(); }
FORKSCALE_INLINE void session_handle::nested() { core_->nested(); }
FORKSCALE_INLINE std::uint64_t session_handle::finished() const { return core_->finished(); }
FORKSCALE_INLINE std::uint64_t session_handle::running() const { return core_->running(); }
FORKSCALE_INLINE std::vector<session_handle::record_entry> session_handle::records() const { return core_->records(); }
FORKSCALE_INLINE const std::string& session_handle::label() const noexcept { return core_->label(); }
FORKSCALE_INLINE report session_handle::snapshot() { return core_->snapshot(); }
FORKSCALE_INLINE void session_handle::write(const std::string& path) { core_->write(path); }
FORKSCALE_INLINE void session_handle::empty_path() const {
  throw error("forkscale: session '" + printable_path(core_->label()) + "': write_snapshot: the path is empty");
}

}  // namespace detail
FORKSCALE_NAMESPACE_END
