// session.hpp: measuring a program that does not return — a server, a long job —
// one unit of work at a time, with the totals so far available at any moment
// (docs/sessions.md).
//
//   fs::snapshot_options snap;
//   snap.path = "server.json";                       // format from the extension: .json .txt .csv .html .htm
//   snap.every = std::chrono::seconds(1);            // and a snapshot written every second
//   fs::session s("server", fs::options{}, snap);
//   ...
//   fs::report r = s.measure("request", [&] { handle(req); });   // from any thread, concurrently
//   fs::report so_far = s.snapshot();                             // the finished ones, merged
//
// Each s.measure is an ordinary fs::measure with the session's options; its
// report is returned and also added to the session's totals (fs::merge_reports,
// merge.hpp). A snapshot is one complete report: the measurements that had
// finished, taken as if they had run one after the other. The destructor stops
// the periodic writer and writes a final snapshot.
//
// With FORKSCALE_ENABLE=0 a session is an empty type: measure() runs the
// callable, snapshot() returns an empty report, nothing is written.
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "config.hpp"
#include "guards.hpp"
#include "merge.hpp"
#include "options.hpp"
#include "record.hpp"
#include "report.hpp"
#include "site.hpp"

#if FORKSCALE_ENABLE
#include "detail/engine/hooks.hpp"
#include "detail/session/handle.hpp"
#if FORKSCALE_DETAIL_DEFINES(sessions)
#include "detail/session/core.hpp"
#endif
#endif

FORKSCALE_NAMESPACE_BEGIN

// Where and when a session writes its snapshots.
struct snapshot_options {
  // The file each snapshot replaces (atomically); its extension, in any case,
  // names the format: .json, .txt, .csv, .html or .htm (the last two need
  // #include <forkscale/study/html.hpp>), as for FORKSCALE_REPORT. Empty:
  // snapshots are only returned by snapshot().
  std::string path;
  // A snapshot is written every `every` by a thread of the session; zero: only
  // when the program calls write_snapshot() (and once at the end).
  std::chrono::nanoseconds every{0};
  // Keep the records (options::record) of the measurements finished since the
  // last snapshot only, so that memory stays bounded; without it the session
  // keeps every record (session::records()).
  bool rotate = false;
};

// The record of one measurement of a session (options::record).
struct recorded_measurement {
  std::string label;
  std::shared_ptr<const execution_record> record;
};

#if FORKSCALE_ENABLE

template <class Clock = default_clock>
class basic_session {
 public:
  // Throws forkscale::error when snap.path has no known extension, when
  // snap.every is negative, or set without a path.
  explicit basic_session(std::string label, options opt = options{}, const snapshot_options& snap = snapshot_options{})
      : opt_(std::move(opt)),
        core_(std::make_unique<detail::session_handle>(std::move(label), opt_.clock, snap.path, snap.every,
                                                       snap.rotate)) {}
  basic_session(const basic_session&) = delete;
  basic_session& operator=(const basic_session&) = delete;
  // Stops the periodic writer and writes a final snapshot (when snap.path is
  // set; a failure is printed, never thrown). Every measure() must have
  // returned.
  ~basic_session() = default;

  // Runs `fn` as one measurement labelled `label`, with the session's options,
  // and adds its report to the totals. Any thread may call it, concurrently
  // with other calls and with snapshots. If `fn` throws, what it did until then
  // is measured and added, and the exception goes on. Called inside another
  // measurement, it is a region of that one (as fs::measure is) and is not added.
  template <class Fn>
  report measure(std::string label, Fn&& fn, const site& where = site::current()) {
    if (detail::current_frame<Clock>) {
      core_->nested();
      return nested_measure(std::move(label), std::forward<Fn>(fn), where);
    }
    core_->start();
    std::optional<basic_region<Clock>> r;
    try {
      r.emplace(label, opt_, where);
    } catch (...) {
      core_->abandon();
      throw;
    }
    try {
      std::forward<Fn>(fn)();
    } catch (...) {
      core_->finish(label, r->stop());
      throw;
    }
    report rep = r->stop();
    core_->finish(label, rep);
    return rep;
  }

  // The measurements finished so far, merged into one report labelled with the
  // session's label. Measurements still running are not in it (one diagnostic
  // says how many). With snapshot_options::rotate, the records kept so far are
  // dropped.
  report snapshot() { return core_->snapshot(); }

  // The snapshot, written to snapshot_options::path (or to `path`, whose
  // extension names the format), replacing the file atomically. Throws
  // forkscale::error when it cannot be written (no partial file is left); the
  // session then does not print that error again when its own writes fail.
  void write_snapshot() { core_->write(std::string()); }
  void write_snapshot(const std::string& path) {
    if (path.empty()) core_->empty_path();
    core_->write(path);
  }

  std::uint64_t finished() const { return core_->finished(); }  // measurements in the totals
  std::uint64_t running() const { return core_->running(); }    // measurements under way
  const std::string& label() const noexcept { return core_->label(); }

  // The records of the measurements (when options::record or FORKSCALE_RECORD
  // asked for them), in the order they finished: every one, or with
  // snapshot_options::rotate those since the last snapshot.
  std::vector<recorded_measurement> records() const {
    std::vector<recorded_measurement> out;
    for (auto& e : core_->records()) out.push_back(recorded_measurement{std::move(e.first), std::move(e.second)});
    return out;
  }

 private:
  template <class Fn>
  report nested_measure(std::string label, Fn&& fn, const site& where) {
    return ::forkscale::measure<Clock>(std::move(label), std::forward<Fn>(fn), opt_, where);
  }

  const options opt_;
  std::unique_ptr<detail::session_handle> core_;
};

#else  // FORKSCALE_ENABLE == 0: the same names, compiled to nothing.

template <class Clock = default_clock>
class basic_session {
 public:
  template <class Label>
  explicit basic_session(const Label&) noexcept {}
  template <class Label, class Options>
  basic_session(const Label&, const Options&) noexcept {}
  template <class Label, class Options, class Snapshot>
  basic_session(const Label&, const Options&, const Snapshot&) noexcept {}
  basic_session(const basic_session&) = delete;
  basic_session& operator=(const basic_session&) = delete;

  template <class Label, class Fn>
  report measure(const Label&, Fn&& fn, const site& = site::current()) {
    std::forward<Fn>(fn)();
    return report{};
  }
  report snapshot() const { return report{}; }
  void write_snapshot() const noexcept {}
  template <class Path>
  void write_snapshot(const Path&) const noexcept {}
  std::uint64_t finished() const noexcept { return 0; }
  std::uint64_t running() const noexcept { return 0; }
  const std::string& label() const noexcept {
    static const std::string none;
    return none;
  }
  std::vector<recorded_measurement> records() const noexcept { return {}; }
};

#endif  // FORKSCALE_ENABLE

using session = basic_session<default_clock>;

FORKSCALE_NAMESPACE_END
