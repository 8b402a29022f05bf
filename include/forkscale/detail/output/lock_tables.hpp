// detail/output/lock_tables.hpp: the lock profile (report::locks; mutex.hpp,
// docs/blame.md) in text, with the holds on the critical path called out, and
// as CSV: report::locks_text, locks_csv and write_locks_csv.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "../../config.hpp"
#include "../../report.hpp"
#include "../util/atomic_file.hpp"
#include "csv.hpp"
#include "format.hpp"
#include "site_tables.hpp"
#include "text_table.hpp"
#include "utf8.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace output {

// "queue at main.cpp:30 in worker"; a lock named by its acquisition site (a
// guard around another lockable, or lock() of an fs::mutex) is named once.
inline std::string lock_label(const lock_site_profile& l, std::size_t width = std::string::npos) {
  const std::string name = l.lock == l.name ? l.name : l.lock + " at " + l.name;
  return site_label(site_kind::call, name, l.function, false, width);
}

// The lines that call out holds on the critical path (with a record).
inline std::string critical_locks_text(const report& rep) {
  std::string out;
  for (const lock_site_profile& l : rep.locks) {
    if (l.critical_holds == 0) continue;
    std::string line = "On the critical path: " + printable(lock_label(l)) + " was held " + grouped(l.critical_holds) +
                       (l.critical_holds == 1 ? " time" : " times") + " in critical strands, " +
                       grouped(l.critical_hold_ns) + " ns of hold";
    if (l.critical_wait_ns) line += " after " + grouped(l.critical_wait_ns) + " ns of wait";
    line += ": a shorter critical section there shortens the span.";
    out += wrapped(line, "  ", "    ");
  }
  return out;
}

inline text_section locks_section(const report& rep, std::size_t top_n) {
  text_section s;
  if (rep.locks.empty()) return s;
  const std::size_t shown = rep.locks.size() < top_n ? rep.locks.size() : top_n;
  s.heading = "Locks (by total wait, largest first; times in ns of wall time)";
  s.body = fitted_site_columns([&](bool short_numbers, std::size_t label_width) {
    text_table t({"lock at site", "acq.", "cont.", "wait", "max", "hold", "caused", "crit."});
    for (std::size_t i = 0; i < shown; ++i) {
      const lock_site_profile& l = rep.locks[i];
      t.add({lock_label(l, label_width), count_text(l.acquisitions, short_numbers),
             count_text(l.contended, short_numbers), count_text(l.wait_ns, short_numbers),
             count_text(l.max_wait_ns, short_numbers), count_text(l.hold_ns, short_numbers),
             count_text(l.blamed_wait_ns, short_numbers), count_text(l.critical_hold_ns, short_numbers)});
    }
    return t;
  });
  s.body += not_shown_note(rep.locks.size() - shown, "lock site");
  s.body += critical_locks_text(rep);
  s.body += wrapped(
      "acq. = acquisitions by threads running tasks of the measurement; cont. = those that found the lock "
      "taken and waited; wait = their time waiting here, max = the longest wait; hold = time held after "
      "acquiring here; caused = the waits of others that began while this site held the lock (directed "
      "blame: the holder is the cause); crit. = hold time inside strands on the critical path (from "
      "the record: 0 without options.record).",
      "  ", "  ");
  return s;
}

inline const char* locks_csv_header() noexcept {
  return "lock,name,file,line,function,tag,acquisitions,contended,wait_ns,max_wait_ns,hold_ns,max_hold_ns,"
         "blamed_wait_ns,blamed_waits,critical_holds,critical_hold_ns,critical_wait_ns\n";
}

}  // namespace output
}  // namespace detail

#if FORKSCALE_DETAIL_DEFINES(writers)
FORKSCALE_INLINE std::string report::locks_text() const {
  const detail::output::text_section s = detail::output::locks_section(*this, 20);
  return s.heading.empty() ? std::string("No locks in this report.\n") : s.heading + "\n" + s.body;
}

FORKSCALE_INLINE std::string report::locks_csv() const {
  namespace io = detail::output;
  std::string out = io::locks_csv_header();
  for (const lock_site_profile& l : locks) {
    out += io::csv_text(l.lock) + ',' + io::csv_text(l.name) + ',' + io::csv_text(l.file) + ',' +
           io::csv_number(static_cast<std::uint64_t>(l.line)) + ',' + io::csv_text(l.function) + ',' +
           io::csv_text(l.tag);
    for (const std::uint64_t v :
         {l.acquisitions, l.contended, l.wait_ns, l.max_wait_ns, l.hold_ns, l.max_hold_ns, l.blamed_wait_ns,
          l.blamed_waits, l.critical_holds, l.critical_hold_ns, l.critical_wait_ns})
      out += ',' + io::csv_number(v);
    out += '\n';
  }
  return out;
}

FORKSCALE_INLINE void report::write_locks_csv(const std::string& path) const {
  detail::write_file_atomically(path, locks_csv());
}
#endif  // FORKSCALE_DETAIL_DEFINES

FORKSCALE_NAMESPACE_END
