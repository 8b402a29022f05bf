// detail/output/json.hpp: a report as JSON, for programs (layout in
// docs/report-schema.md): report::to_json, one function per member, and
// report::write_json.
#pragma once
#include <cstdint>
#include <string>

#include "../../clock.hpp"
#include "../../config.hpp"
#include "../../report.hpp"
#include "../util/atomic_file.hpp"
#include "format.hpp"
#include "json_record.hpp"
#include "json_writer.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace output {

// The members before the tables: the schema, the report's label, unit and clock,
// and the settings it was measured with.
inline void json_header(json_writer& j, const report& rep) {
  j.member("schema", "forkscale.report");
  j.member("schema_version", std::uint64_t{1});
  j.member("forkscale_version", FORKSCALE_VERSION_STRING);
  j.member("label", rep.label);
  j.member("unit", rep.unit);
  j.member("clock", to_string(rep.clock));
  j.member("burden", rep.burden);
  j.member("burden_source", rep.burden_source);
  j.member("burden_note", rep.burden_note);
  j.member("backend", rep.backend);
  j.member("compensation_per_strand", rep.compensation_per_strand);
  j.member("compensation_residual", rep.compensation_residual);
  j.member("compensation_total", rep.compensation_total);
  j.member("max_processors", static_cast<std::uint64_t>(rep.max_processors));
  j.member("profiler_bytes", static_cast<std::uint64_t>(rep.profiler_bytes));
}

// "regions": one object per region, with its speedup estimate.
inline void json_regions(json_writer& j, const report& rep) {
  j.key("regions");
  j.begin_array();
  for (const auto& r : rep.regions) {
    j.begin_object();
    j.member("label", r.label);
    j.member("path", r.path);
    j.member("parent", r.parent);
    j.member("depth", static_cast<std::uint64_t>(r.depth));
    j.member("instances", r.instances);
    j.member("work", r.work);
    j.member("span", r.span);
    j.member("burdened_span", r.burdened_span);
    j.member("parallelism", r.parallelism());
    j.member("burdened_parallelism", r.burdened_parallelism());
    j.member("spawns", r.spawns);
    j.member("syncs", r.syncs);
    j.member("calls", r.calls);
    j.member("average_maximal_strand", r.average_maximal_strand());
    j.member("raw_work", r.raw_work);
    j.member("raw_span", r.raw_span);
    j.key("speedup_estimate");
    j.begin_array();
    for (const auto& b : r.speedup_estimate(rep.max_processors)) {
      j.begin_object();
      j.member("processors", static_cast<std::uint64_t>(b.processors));
      j.member("lower", b.lower);
      j.member("upper", b.upper);
      j.end_object();
    }
    j.end_array();
    j.end_object();
  }
  j.end_array();
}

// One measurement of a call site, as the object `name`.
inline void json_measure(json_writer& j, const char* name, const site_measure& m) {
  j.key(name);
  j.begin_object();
  j.member("count", m.count);
  j.member("work", m.work);
  j.key("span");
  j.value_raw(json_signed(m.span));
  j.member("parallelism", m.parallelism());
  j.end_object();
}

// The members every site object starts with: what the site is and where.
inline void json_site_identity(json_writer& j, const std::string& name, site_kind kind, const std::string& file,
                               unsigned line, const std::string& function, const std::string& tag, bool recursive) {
  j.member("name", name);
  j.member("kind", to_string(kind));
  j.member("file", file);
  j.member("line", static_cast<std::uint64_t>(line));
  j.member("function", function);
  j.member("tag", tag);
  j.key("recursive");
  j.value_raw(bool_text(recursive));
}

// "call_sites": one object per call site, with its six measurements.
inline void json_call_sites(json_writer& j, const report& rep) {
  j.key("call_sites");
  j.begin_array();
  for (const auto& c : rep.call_sites) {
    j.begin_object();
    json_site_identity(j, c.name, c.kind, c.file, c.line, c.function, c.tag, c.recursive);
    json_measure(j, "top_call_site_on_work", c.top_call_site_on_work);
    json_measure(j, "top_caller_on_work", c.top_caller_on_work);
    json_measure(j, "local_on_work", c.local_on_work);
    json_measure(j, "top_call_site_on_span", c.top_call_site_on_span);
    json_measure(j, "top_caller_on_span", c.top_caller_on_span);
    json_measure(j, "local_on_span", c.local_on_span);
    j.end_object();
  }
  j.end_array();
}

// "spawn_sites": one object per spawn site.
inline void json_spawn_sites(json_writer& j, const report& rep) {
  j.key("spawn_sites");
  j.begin_array();
  for (const auto& p : rep.spawn_sites) {
    j.begin_object();
    json_site_identity(j, p.name, p.kind, p.file, p.line, p.function, p.tag, p.recursive);
    j.member("tasks", p.tasks);
    j.member("work", p.work);
    j.member("span", p.span);
    j.member("parallelism", p.parallelism());
    j.member("exclusive_work", p.exclusive_work);
    j.key("critical_span");
    j.value_raw(json_signed(p.critical_span));
    j.member("critical_percent", p.critical_percent);
    j.end_object();
  }
  j.end_array();
}

// "what_if": one object per what-if row.
inline void json_what_if(json_writer& j, const report& rep) {
  j.key("what_if");
  j.begin_array();
  for (const auto& w : rep.what_if) {
    j.begin_object();
    j.member("region", w.region);
    j.member("source", to_string(w.source));
    j.member("file", w.file);
    j.member("line", static_cast<std::uint64_t>(w.line));
    j.member("function", w.function);
    j.member("tag", w.tag);
    j.member("model", to_string(w.model));
    j.key("factor");
    j.value_raw(json_unbounded(w.factor));
    j.key("executed");
    j.value_raw(bool_text(w.executed));
    j.member("entries", w.entries);
    j.member("region_work", w.region_work);
    j.member("work", w.work);
    j.member("span", w.span);
    j.member("burdened_span", w.burdened_span);
    j.key("parallelism");
    j.value_raw(json_unbounded(w.parallelism));
    j.key("gain");
    j.value_raw(json_unbounded(w.gain));
    j.key("span_ticks_num");
    j.value_raw(json_signed(w.span_ticks_num));
    j.key("span_ticks_den");
    j.value_raw(json_signed(w.span_ticks_den));
    j.end_object();
  }
  j.end_array();
}

// "locks": one object per lock and acquisition site (report::locks).
inline void json_locks(json_writer& j, const report& rep) {
  j.key("locks");
  j.begin_array();
  for (const auto& l : rep.locks) {
    j.begin_object();
    j.member("lock", l.lock);
    j.member("name", l.name);
    j.member("file", l.file);
    j.member("line", static_cast<std::uint64_t>(l.line));
    j.member("function", l.function);
    j.member("tag", l.tag);
    j.member("acquisitions", l.acquisitions);
    j.member("contended", l.contended);
    j.member("wait_ns", l.wait_ns);
    j.member("max_wait_ns", l.max_wait_ns);
    j.member("hold_ns", l.hold_ns);
    j.member("max_hold_ns", l.max_hold_ns);
    j.member("blamed_wait_ns", l.blamed_wait_ns);
    j.member("blamed_waits", l.blamed_waits);
    j.member("critical_holds", l.critical_holds);
    j.member("critical_hold_ns", l.critical_hold_ns);
    j.member("critical_wait_ns", l.critical_wait_ns);
    j.end_object();
  }
  j.end_array();
}

// "load": how busy the machine was (report::load; docs/report-schema.md).
inline void json_load(json_writer& j, const report& rep) {
  const load_check& l = rep.load;
  j.key("load");
  j.begin_object();
  j.key("checked");
  j.value_raw(bool_text(l.checked));
  j.member("involuntary_switches", l.involuntary_switches);
  j.member("migrations", l.migrations);
  j.member("wait_ns", l.wait_ns);
  j.member("runnable_at_start", static_cast<std::uint64_t>(l.runnable_at_start));
  j.member("hardware_threads", static_cast<std::uint64_t>(l.hardware_threads));
  j.key("clock_chosen_for_load");
  j.value_raw(bool_text(l.clock_chosen_for_load));
  j.key("inflated");
  j.value_raw(bool_text(l.inflated));
  j.member("warning", l.warning());
  j.end_object();
}

// "diagnostic_count" and "diagnostics", the ones the report kept.
inline void json_diagnostics(json_writer& j, const report& rep) {
  j.member("diagnostic_count", rep.diagnostic_count);
  j.key("diagnostics");
  j.begin_array();
  for (const auto& d : rep.diagnostics) {
    j.begin_object();
    j.member("where", d.where);
    j.member("problem", d.problem);
    j.end_object();
  }
  j.end_array();
}

}  // namespace output
}  // namespace detail

#if FORKSCALE_DETAIL_DEFINES(writers)
FORKSCALE_INLINE std::string report::to_json() const {
  namespace io = detail::output;
  io::json_writer j;
  j.begin_object();
  io::json_header(j, *this);
  io::json_regions(j, *this);
  io::json_call_sites(j, *this);
  io::json_spawn_sites(j, *this);
  io::json_what_if(j, *this);
  io::json_locks(j, *this);
  io::json_load(j, *this);
  io::json_diagnostics(j, *this);
  if (record) io::json_record(j, *record);
  j.end_object();
  return j.finish();
}

FORKSCALE_INLINE void report::write_json(const std::string& path) const {
  detail::write_file_atomically(path, to_json());
}
#endif  // FORKSCALE_DETAIL_DEFINES

FORKSCALE_NAMESPACE_END
