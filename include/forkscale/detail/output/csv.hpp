// detail/output/csv.hpp: a report's CSV tables (regions, call sites, spawn
// sites, what-if; layouts in docs/report-schema.md), their field quoting, and
// the write_*csv functions that put them in files.
#pragma once
#include <cmath>
#include <cstdint>
#include <string>

#include "../../clock.hpp"
#include "../../config.hpp"
#include "../../report.hpp"
#include "../util/atomic_file.hpp"
#include "format.hpp"
#include "utf8.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace output {

// One text field: valid UTF-8; a leading ' when it starts with a character a
// spreadsheet would take for a formula (=, +, -, @, tab, CR; OWASP "CSV
// Injection"); then RFC 4180 quoting when it holds a comma, quote, CR or LF.
inline std::string csv_text(const std::string& s) {
  std::string v = valid_utf8(s);
  if (!v.empty()) {
    const char c = v.front();
    if (c == '=' || c == '+' || c == '-' || c == '@' || c == '\t' || c == '\r') v.insert(0, 1, '\'');
  }
  if (v.find_first_of(",\"\r\n") == std::string::npos) return v;
  std::string out;
  out.reserve(v.size() + 2);
  out += '"';
  for (const char c : v) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

inline std::string csv_number(double v) { return round_trip(v); }  // empty if not finite
inline std::string csv_number(std::uint64_t v) { return std::to_string(v); }
inline std::string csv_signed(std::int64_t v) { return std::to_string(v); }

// A number that may be +infinity (a what-if factor, parallelism or gain): the
// number, "inf" for +infinity, an empty field for anything else that is not
// finite.
inline std::string csv_unbounded(double v) {
  if (std::isinf(v) && v > 0) return "inf";
  return csv_number(v);
}

// The two columns every CSV row ends with: the report's unit and clock, then the
// end of the line.
inline std::string csv_unit_clock(const report& rep) {
  return "," + csv_text(rep.unit) + "," + csv_text(to_string(rep.clock)) + "\n";
}

// The columns every site CSV starts with (docs/report-schema.md), and their
// fields for one row.
inline const char* site_csv_identity() noexcept { return "name,kind,file,line,function,tag,recursive"; }

inline void csv_site_identity(std::string& out, const std::string& name, site_kind kind, const std::string& file,
                              unsigned line, const std::string& function, const std::string& tag, bool recursive) {
  out += csv_text(name) + ',' + csv_text(to_string(kind)) + ',' + csv_text(file) + ',' +
         csv_number(static_cast<std::uint64_t>(line)) + ',' + csv_text(function) + ',' + csv_text(tag) + ',' +
         bool_text(recursive);
}

// The four columns of one measurement: count, work, span, parallelism.
inline void csv_measure(std::string& out, const site_measure& m) {
  out += ',' + csv_number(m.count) + ',' + csv_number(m.work) + ',' + csv_signed(m.span) + ',' +
         csv_number(m.parallelism());
}

}  // namespace output
}  // namespace detail

#if FORKSCALE_DETAIL_DEFINES(writers)
FORKSCALE_INLINE std::string report::to_csv() const {
  namespace io = detail::output;
  std::string out =
      "label,path,parent,depth,instances,work,span,burdened_span,parallelism,"
      "burdened_parallelism,spawns,syncs,calls,average_maximal_strand,raw_work,raw_span,"
      "unit,clock\n";
  const std::string unit_field = io::csv_text(unit);
  const std::string clock_field = io::csv_text(to_string(clock));
  for (const auto& r : regions) {
    const std::string fields[] = {
        io::csv_text(r.label),
        io::csv_text(r.path),
        io::csv_text(r.parent),
        io::csv_number(static_cast<std::uint64_t>(r.depth)),
        io::csv_number(r.instances),
        io::csv_number(r.work),
        io::csv_number(r.span),
        io::csv_number(r.burdened_span),
        io::csv_number(r.parallelism()),
        io::csv_number(r.burdened_parallelism()),
        io::csv_number(r.spawns),
        io::csv_number(r.syncs),
        io::csv_number(r.calls),
        io::csv_number(r.average_maximal_strand()),
        io::csv_number(r.raw_work),
        io::csv_number(r.raw_span),
        unit_field,
        clock_field,
    };
    bool first = true;
    for (const auto& f : fields) {
      if (!first) out += ',';
      first = false;
      out += f;
    }
    out += '\n';
  }
  return out;
}

FORKSCALE_INLINE std::string report::call_sites_csv() const {
  namespace io = detail::output;
  std::string out = io::site_csv_identity();
  for (const char* m : {"top_call_site_on_work", "top_caller_on_work", "local_on_work", "top_call_site_on_span",
                        "top_caller_on_span", "local_on_span"})
    for (const char* f : {"count", "work", "span", "parallelism"}) out += std::string(",") + m + "_" + f;
  out += ",unit,clock\n";
  const std::string tail = io::csv_unit_clock(*this);
  for (const auto& c : call_sites) {
    io::csv_site_identity(out, c.name, c.kind, c.file, c.line, c.function, c.tag, c.recursive);
    for (const site_measure* m : {&c.top_call_site_on_work, &c.top_caller_on_work, &c.local_on_work,
                                  &c.top_call_site_on_span, &c.top_caller_on_span, &c.local_on_span})
      io::csv_measure(out, *m);
    out += tail;
  }
  return out;
}

FORKSCALE_INLINE std::string report::spawn_sites_csv() const {
  namespace io = detail::output;
  std::string out = std::string(io::site_csv_identity()) +
                    ",tasks,work,span,parallelism,exclusive_work,critical_span,critical_percent,unit,clock\n";
  const std::string tail = io::csv_unit_clock(*this);
  for (const auto& p : spawn_sites) {
    io::csv_site_identity(out, p.name, p.kind, p.file, p.line, p.function, p.tag, p.recursive);
    out += ',' + io::csv_number(p.tasks) + ',' + io::csv_number(p.work) + ',' + io::csv_number(p.span) + ',' +
           io::csv_number(p.parallelism()) + ',' + io::csv_number(p.exclusive_work) + ',' +
           io::csv_signed(p.critical_span) + ',' + io::csv_number(p.critical_percent);
    out += tail;
  }
  return out;
}

FORKSCALE_INLINE std::string report::what_if_csv() const {
  namespace io = detail::output;
  std::string out =
      "region,source,file,line,function,tag,model,factor,executed,entries,region_work,work,span,burdened_span,"
      "parallelism,gain,span_ticks_num,span_ticks_den,unit,clock\n";
  const std::string tail = io::csv_unit_clock(*this);
  for (const auto& w : what_if) {
    out += io::csv_text(w.region) + ',' + io::csv_text(to_string(w.source)) + ',' + io::csv_text(w.file) + ',' +
           io::csv_number(static_cast<std::uint64_t>(w.line)) + ',' + io::csv_text(w.function) + ',' +
           io::csv_text(w.tag) + ',' + io::csv_text(to_string(w.model)) + ',' + io::csv_unbounded(w.factor) + ',' +
           io::bool_text(w.executed) + ',' + io::csv_number(w.entries) + ',' + io::csv_number(w.region_work) + ',' +
           io::csv_number(w.work) + ',' + io::csv_number(w.span) + ',' + io::csv_number(w.burdened_span) + ',' +
           io::csv_unbounded(w.parallelism) + ',' + io::csv_unbounded(w.gain) + ',' + io::csv_signed(w.span_ticks_num) +
           ',' + io::csv_signed(w.span_ticks_den);
    out += tail;
  }
  return out;
}

FORKSCALE_INLINE void report::write_csv(const std::string& path) const {
  detail::write_file_atomically(path, to_csv());
}

FORKSCALE_INLINE void report::write_what_if_csv(const std::string& path) const {
  detail::write_file_atomically(path, what_if_csv());
}

FORKSCALE_INLINE void report::write_call_sites_csv(const std::string& path) const {
  detail::write_file_atomically(path, call_sites_csv());
}

FORKSCALE_INLINE void report::write_spawn_sites_csv(const std::string& path) const {
  detail::write_file_atomically(path, spawn_sites_csv());
}
#endif  // FORKSCALE_DETAIL_DEFINES

FORKSCALE_NAMESPACE_END
