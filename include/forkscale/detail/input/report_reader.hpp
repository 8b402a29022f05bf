// detail/input/report_reader.hpp: the reader behind fs::read_report and
// fs::from_json (read_report.hpp): a report, its regions, sites, what-if rows,
// locks and record from a parsed JSON value, with every derived number checked;
// and the file reading and schema check the study's reader shares.
#pragma once
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "../../config.hpp"
#include "../../report.hpp"
#include "../output/report_writers.hpp"
#include "../util/atomic_file.hpp"
#include "json_reader.hpp"
#include "record_reader.hpp"

#if !defined(_WIN32)
#include <sys/stat.h>
#endif

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace json {

// ---- files --------------------------------------------------------------------

// The whole file as bytes. Throws forkscale::error "forkscale: cannot read
// <what> '<path>': <reason>" when it cannot be opened, is not a regular file, or
// is larger than `max_bytes`.
inline std::string read_file(const std::string& path, const std::string& what,
                             std::size_t max_bytes = limits{}.max_bytes) {
  const std::string head =
      "forkscale: cannot read " + what + (what.empty() ? "'" : " '") + printable_path(path) + "': ";
  if (path.empty()) throw error(head + "the path is empty");
#if !defined(_WIN32)
  struct stat st;
  if (stat(path.c_str(), &st) != 0) throw error(head + errno_text(errno));
  if (S_ISDIR(st.st_mode)) throw error(head + "it is a directory");
  if (S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) > max_bytes)
    throw error(head + "the file is " + std::to_string(st.st_size) + " bytes, more than the limit of " +
                std::to_string(max_bytes));
#endif
  errno = 0;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw error(head + errno_text(errno ? errno : ENOENT));
  std::string out;
  char buf[65536];
  for (;;) {
    const std::size_t n = std::fread(buf, 1, sizeof buf, f);
    out.append(buf, n);
    if (out.size() > max_bytes) {
      std::fclose(f);
      throw error(head + "the file is more than the limit of " + std::to_string(max_bytes) + " bytes");
    }
    if (n < sizeof buf) break;
  }
  const bool failed = std::ferror(f) != 0;
  const int err = errno;
  std::fclose(f);
  if (failed) throw error(head + errno_text(err ? err : EIO));
  return out;
}

// ---- writing a parsed value back (to embed one document in another) ------------

inline void write_value(output::json_writer& j, const value& v) {
  switch (v.type) {
    case kind::null:
      j.value_raw("null");
      break;
    case kind::boolean:
      j.value_raw(v.boolean ? "true" : "false");
      break;
    case kind::number:
      j.value_raw(v.text);
      break;
    case kind::string:
      j.value(v.text);
      break;
    case kind::array:
      j.begin_array();
      for (const auto& item : v.items) write_value(j, item);
      j.end_array();
      break;
    case kind::object:
      j.begin_object();
      for (const auto& m : v.members) {
        j.key(m.key.c_str());
        write_value(j, m.v);
      }
      j.end_object();
      break;
  }
}

// ---- the report schema ----------------------------------------------------------

// Checks "schema" and "schema_version" of a document that must be `expected`.
inline void check_schema(const object_reader& top, const char* expected, std::uint64_t newest) {
  const value* schema = top.optional("schema");
  if (!schema) throw json_error(top.obj().offset, std::string("not a ") + expected + " document (no \"schema\" key)");
  if (!schema->is(kind::string))
    throw json_error(schema->offset, std::string("schema: expected a string, found ") + kind_name(schema->type));
  if (schema->text != expected)
    throw json_error(schema->offset, std::string("not a ") + expected + " document (its schema is " +
                                         quote_for_message(schema->text) + ")");
  const value& ver = top.required("schema_version");
  const std::uint64_t version = top.u64("schema_version");
  if (version == 0) throw json_error(ver.offset, "schema_version 0 is not a valid version");
  if (version > newest)
    throw json_error(ver.offset, "schema_version " + std::to_string(version) +
                                     " is newer than this reader understands (" + std::to_string(newest) + ")");
}

inline clock_kind clock_from_name(const object_reader& r, const char* key) {
  const std::string name = r.str(key);
  for (const clock_kind k : {clock_kind::automatic, clock_kind::cost, clock_kind::tsc, clock_kind::steady,
                             clock_kind::arm_counter, clock_kind::thread_cpu})
    if (name == to_string(k)) return k;
  throw json_error(r.required(key).offset, r.path(key) + ": unknown clock " + quote_for_message(name));
}

inline region_result region_from_value(const value& v, const std::string& where, unsigned max_processors) {
  const object_reader r(v, where);
  region_result g;
  g.label = r.str("label");
  g.path = r.str("path");
  g.parent = r.str("parent");
  g.depth = r.u32("depth");
  g.instances = r.u64("instances");
  g.work = r.u64("work");
  g.span = r.u64("span");
  g.burdened_span = r.u64("burdened_span");
  g.spawns = r.u64("spawns");
  g.syncs = r.u64("syncs");
  g.calls = r.u64("calls");
  g.raw_work = r.u64("raw_work");
  g.raw_span = r.u64("raw_span");
  check_derived(r.required("parallelism"), r.path("parallelism"), r.number("parallelism"), g.parallelism());
  check_derived(r.required("burdened_parallelism"), r.path("burdened_parallelism"), r.number("burdened_parallelism"),
                g.burdened_parallelism());
  check_derived(r.required("average_maximal_strand"), r.path("average_maximal_strand"),
                r.number("average_maximal_strand"), g.average_maximal_strand());

  const value& est = r.array("speedup_estimate");
  const std::vector<speedup_bound> expected = g.speedup_estimate(max_processors);
  if (est.items.size() != expected.size())
    throw json_error(est.offset, r.path("speedup_estimate") + " has " + std::to_string(est.items.size()) +
                                     " entries, but max_processors " + std::to_string(max_processors) + " gives " +
                                     std::to_string(expected.size()) + " (the file is inconsistent)");
  for (std::size_t i = 0; i < est.items.size(); ++i) {
    const object_reader b(est.items[i], r.path("speedup_estimate") + "[" + std::to_string(i) + "]");
    const unsigned p = b.u32("processors");
    if (p != expected[i].processors)
      throw json_error(b.required("processors").offset, b.path("processors") + " is " + std::to_string(p) +
                                                            ", expected " + std::to_string(expected[i].processors) +
                                                            " (the file is inconsistent)");
    check_derived(b.required("lower"), b.path("lower"), b.number("lower"), expected[i].lower);
    check_derived(b.required("upper"), b.path("upper"), b.number("upper"), expected[i].upper);
  }
  return g;
}

inline site_kind site_kind_from_name(const object_reader& r, const char* key) {
  const std::string name = r.str(key);
  for (const site_kind k : {site_kind::root, site_kind::call, site_kind::spawn})
    if (name == to_string(k)) return k;
  throw json_error(r.required(key).offset,
                   r.path(key) + ": unknown site kind " + quote_for_message(name) + " (expected root, call or spawn)");
}

// The members every site row starts with (name, kind, file, line, function, tag,
// recursive).
template <typename Row>
void site_identity_from(const object_reader& r, Row& row) {
  row.name = r.str("name");
  row.kind = site_kind_from_name(r, "kind");
  row.file = r.str("file");
  row.line = r.u32("line");
  row.function = r.str("function");
  row.tag = r.str("tag");
  row.recursive = r.boolean("recursive");
}

inline site_measure site_measure_from(const object_reader& row, const char* key) {
  const object_reader r(row.object(key), row.path(key));
  site_measure m;
  m.count = r.u64("count");
  m.work = r.u64("work");
  m.span = r.i64("span");
  check_derived(r.required("parallelism"), r.path("parallelism"), r.number("parallelism"), m.parallelism());
  return m;
}

inline call_site_profile call_site_from_value(const value& v, const std::string& where) {
  const object_reader r(v, where);
  call_site_profile c;
  site_identity_from(r, c);
  c.top_call_site_on_work = site_measure_from(r, "top_call_site_on_work");
  c.top_caller_on_work = site_measure_from(r, "top_caller_on_work");
  c.local_on_work = site_measure_from(r, "local_on_work");
  c.top_call_site_on_span = site_measure_from(r, "top_call_site_on_span");
  c.top_caller_on_span = site_measure_from(r, "top_caller_on_span");
  c.local_on_span = site_measure_from(r, "local_on_span");
  return c;
}

inline spawn_site_profile spawn_site_from_value(const value& v, const std::string& where) {
  const object_reader r(v, where);
  spawn_site_profile p;
  site_identity_from(r, p);
  p.tasks = r.u64("tasks");
  p.work = r.u64("work");
  p.span = r.u64("span");
  check_derived(r.required("parallelism"), r.path("parallelism"), r.number("parallelism"), p.parallelism());
  p.exclusive_work = r.u64("exclusive_work");
  p.critical_span = r.i64("critical_span");
  p.critical_percent = r.number("critical_percent", true);
  return p;
}

// A number that may be +infinity: a JSON number, the string "inf" (+infinity)
// or null (not a number), as output::json_unbounded writes them.
inline double unbounded_from(const object_reader& r, const char* key) {
  const value& m = r.required(key);
  if (m.is(kind::string)) {
    if (m.text == "inf") return std::numeric_limits<double>::infinity();
    throw json_error(
        m.offset, r.path(key) + ": expected a number, \"inf\" or null, found the string " + quote_for_message(m.text));
  }
  if (!m.is(kind::number) && !m.is(kind::null)) r.wrong(key, m, "a number, \"inf\" or null");
  return object_reader::number_of(m, r.path(key), true);
}

inline what_if_model what_if_model_from_name(const object_reader& r, const char* key) {
  const std::string name = r.str(key);
  for (const what_if_model m : {what_if_model::parallelized, what_if_model::optimized})
    if (name == to_string(m)) return m;
  throw json_error(r.required(key).offset, r.path(key) + ": unknown what-if model " + quote_for_message(name) +
                                               " (expected parallelized or optimized)");
}

inline what_if_source what_if_source_from_name(const object_reader& r, const char* key) {
  const std::string name = r.str(key);
  for (const what_if_source k : {what_if_source::all, what_if_source::region, what_if_source::call_site})
    if (name == to_string(k)) return k;
  throw json_error(r.required(key).offset, r.path(key) + ": unknown what-if source " + quote_for_message(name) +
                                               " (expected all, region or call_site)");
}

inline what_if_result what_if_from_value(const value& v, const std::string& where) {
  const object_reader r(v, where);
  what_if_result w;
  w.region = r.str("region");
  w.source = what_if_source_from_name(r, "source");
  w.file = r.str("file");
  w.line = r.u32("line");
  w.function = r.str("function");
  w.tag = r.str("tag");
  w.model = what_if_model_from_name(r, "model");
  w.factor = unbounded_from(r, "factor");
  w.executed = r.boolean("executed");
  w.entries = r.u64("entries");
  w.region_work = r.u64("region_work");
  w.work = r.number("work", true);
  w.span = r.number("span", true);
  w.burdened_span = r.number("burdened_span", true);
  w.parallelism = unbounded_from(r, "parallelism");
  w.gain = unbounded_from(r, "gain");
  w.span_ticks_num = r.i64("span_ticks_num");
  w.span_ticks_den = r.i64("span_ticks_den");
  if (w.span_ticks_den <= 0)
    throw json_error(r.required("span_ticks_den").offset,
                     r.path("span_ticks_den") + ": " + std::to_string(w.span_ticks_den) + " is not positive");
  // A corrupted digit of work or span makes the stated parallelism disagree.
  if (w.span > 0 && std::isfinite(w.span) && std::isfinite(w.work))
    check_derived(r.required("parallelism"), r.path("parallelism"), w.parallelism, w.work / w.span);
  return w;
}

inline lock_site_profile lock_from_value(const value& v, const std::string& where) {
  const object_reader r(v, where);
  lock_site_profile l;
  l.lock = r.str("lock");
  l.name = r.str("name");
  l.file = r.str("file");
  l.line = r.u32("line");
  l.function = r.str("function");
  l.tag = r.str("tag");
  l.acquisitions = r.u64("acquisitions");
  l.contended = r.u64("contended");
  l.wait_ns = r.u64("wait_ns");
  l.max_wait_ns = r.u64("max_wait_ns");
  l.hold_ns = r.u64("hold_ns");
  l.max_hold_ns = r.u64("max_hold_ns");
  l.blamed_wait_ns = r.u64("blamed_wait_ns");
  l.blamed_waits = r.u64("blamed_waits");
  l.critical_holds = r.u64("critical_holds");
  l.critical_hold_ns = r.u64("critical_hold_ns");
  l.critical_wait_ns = r.u64("critical_wait_ns");
  // A corrupted digit often breaks one of these.
  const auto inconsistent = [&](const char* key, const std::string& why) {
    throw json_error(r.required(key).offset, r.path(key) + ": " + why + " (the file is inconsistent)");
  };
  if (l.contended > l.acquisitions) inconsistent("contended", "more than the acquisitions");
  if (l.max_wait_ns > l.wait_ns) inconsistent("max_wait_ns", "more than wait_ns");
  if (l.max_hold_ns > l.hold_ns) inconsistent("max_hold_ns", "more than hold_ns");
  if (l.critical_holds > l.acquisitions) inconsistent("critical_holds", "more than the acquisitions");
  return l;
}

// The rows of an optional array member (absent in files written before the site
// profiles existed: no rows).
// "load" (optional: files written before it existed have none).
inline load_check load_from(const object_reader& top) {
  load_check l;
  const value* v = top.optional("load");
  if (!v) return l;
  if (!v->is(kind::object)) top.wrong("load", *v, "an object");
  const object_reader r(*v, top.path("load"));
  l.checked = r.boolean("checked");
  l.involuntary_switches = r.u64("involuntary_switches");
  l.migrations = r.u64("migrations");
  l.wait_ns = r.u64("wait_ns");
  l.runnable_at_start = r.u32("runnable_at_start");
  l.hardware_threads = r.u32("hardware_threads");
  l.clock_chosen_for_load = r.boolean("clock_chosen_for_load");
  l.inflated = r.boolean("inflated");
  if (r.str("warning") != l.warning())
    throw json_error(r.required("warning").offset,
                     r.path("warning") + " does not match the file's own load figures (the file is inconsistent)");
  return l;
}

template <typename Row, typename Read>
std::vector<Row> optional_rows(const object_reader& top, const char* key, Read read) {
  std::vector<Row> rows;
  const value* a = top.optional(key);
  if (!a) return rows;
  if (!a->is(kind::array)) top.wrong(key, *a, "an array");
  rows.reserve(a->items.size());
  for (std::size_t i = 0; i < a->items.size(); ++i)
    rows.push_back(read(a->items[i], top.path(key) + "[" + std::to_string(i) + "]"));
  return rows;
}

// A report from a parsed "forkscale.report" document; `where` prefixes the
// member paths in messages (empty at the top of a file).
inline report report_from_value(const value& v, const std::string& where = std::string()) {
  const object_reader top(v, where);
  check_schema(top, "forkscale.report", 1);
  report rep;
  rep.label = top.str("label");
  rep.unit = top.str("unit");
  if (rep.unit.empty()) throw json_error(top.required("unit").offset, top.path("unit") + ": empty unit");
  rep.clock = clock_from_name(top, "clock");
  rep.burden = top.u64("burden");
  // Absent in older files:
  if (top.optional("burden_source")) rep.burden_source = top.str("burden_source");
  if (top.optional("burden_note")) rep.burden_note = top.str("burden_note");
  if (top.optional("backend")) rep.backend = top.str("backend");
  rep.compensation_per_strand = top.number("compensation_per_strand", true);
  if (top.optional("compensation_residual")) rep.compensation_residual = top.number("compensation_residual", true);
  rep.compensation_total = top.u64("compensation_total");
  rep.max_processors = top.u32("max_processors");
  const std::uint64_t bytes = top.u64("profiler_bytes");
  if (bytes > static_cast<std::uint64_t>(static_cast<std::size_t>(-1)))
    throw json_error(top.required("profiler_bytes").offset, top.path("profiler_bytes") + ": too large");
  rep.profiler_bytes = static_cast<std::size_t>(bytes);

  const value& regions = top.array("regions");
  rep.regions.reserve(regions.items.size());
  for (std::size_t i = 0; i < regions.items.size(); ++i) {
    rep.regions.push_back(
        region_from_value(regions.items[i], top.path("regions") + "[" + std::to_string(i) + "]", rep.max_processors));
    if (i == 0 && rep.regions[0].depth != 0)
      throw json_error(regions.items[0].offset,
                       top.path("regions") + "[0]: the first region must be the root (depth 0)");
  }

  rep.call_sites = optional_rows<call_site_profile>(top, "call_sites", call_site_from_value);
  rep.spawn_sites = optional_rows<spawn_site_profile>(top, "spawn_sites", spawn_site_from_value);
  rep.what_if = optional_rows<what_if_result>(top, "what_if", what_if_from_value);
  rep.locks = optional_rows<lock_site_profile>(top, "locks", lock_from_value);
  rep.load = load_from(top);
  rep.record = record_from(top, rep.unit);  // optional: files without a record read as before

  rep.diagnostic_count = top.u64("diagnostic_count");
  const value& diags = top.array("diagnostics");
  for (std::size_t i = 0; i < diags.items.size(); ++i) {
    const object_reader d(diags.items[i], top.path("diagnostics") + "[" + std::to_string(i) + "]");
    rep.diagnostics.push_back(diagnostic{d.str("where"), d.str("problem")});
  }
  if (rep.diagnostic_count < rep.diagnostics.size())
    throw json_error(top.required("diagnostic_count").offset,
                     top.path("diagnostic_count") + " is " + std::to_string(rep.diagnostic_count) + " but " +
                         std::to_string(rep.diagnostics.size()) + " diagnostics are listed (the file is inconsistent)");
  return rep;
}

}  // namespace json
}  // namespace detail
FORKSCALE_NAMESPACE_END
