// study/json.hpp: a study as JSON — study_result::to_json and write_json (schema
// "forkscale.study" version 1, docs/study-schema.md), and reading it back with every
// derived number checked (study_from_json, read_study).
#pragma once
#include <string>

#include "../config.hpp"
#include "result.hpp"

#if FORKSCALE_DETAIL_DEFINES(studies)
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>
#include "../clock.hpp"
#include "../detail/input/json_reader.hpp"
#include "../detail/input/report_reader.hpp"
#include "../detail/output/json.hpp"
#include "../detail/output/json_writer.hpp"
#include "../detail/util/atomic_file.hpp"
#include "../report.hpp"
#include "prediction_io.hpp"
#include "scaling.hpp"
#endif

FORKSCALE_NAMESPACE_BEGIN

namespace detail {
namespace json {
struct value;
}  // namespace json
namespace study {
// A study from a parsed JSON document (study_from_json without the parse), for
// readers that look at the schema first.
FORKSCALE_INLINE study_result study_from_value(const json::value& v);
}  // namespace study
}  // namespace detail

// A study from the text of its JSON. Throws forkscale::error ("forkscale:
// invalid study JSON: byte <n>: <problem>").
FORKSCALE_INLINE study_result study_from_json(const std::string& text);

// A study from a file written by study_result::write_json. Throws
// forkscale::error ("forkscale: cannot read study '<path>': <problem>").
FORKSCALE_INLINE study_result read_study(const std::string& path);

#if FORKSCALE_DETAIL_DEFINES(studies)
// ---- writing ------------------------------------------------------------------------

namespace detail {
namespace study {

inline void write_stats(output::json_writer& j, const char* key, const sample_stats& s) {
  j.key(key);
  j.begin_object();
  j.member("mean", s.mean);
  j.member("median", s.median);
  j.member("min", s.min);
  j.member("max", s.max);
  j.member("stddev", s.stddev);
  j.key("samples");
  j.begin_array();
  for (const double v : s.samples) j.value(v);
  j.end_array();
  j.end_object();
}

// The first members of one run's object: its thread count, under `key`, and
// whether that is more than the hardware threads.
inline void begin_run(output::json_writer& j, const char* key, unsigned count, bool oversubscribed) {
  j.begin_object();
  j.member(key, static_cast<std::uint64_t>(count));
  j.key("oversubscribed");
  j.value_raw(oversubscribed ? "true" : "false");
}

// runs[i]: everything measured and derived at one P.
inline void write_point(output::json_writer& j, const study_point& pt) {
  begin_run(j, "processors", pt.processors, pt.oversubscribed);
  write_stats(j, "time", pt.time);
  write_stats(j, "work", pt.work);
  write_stats(j, "raw_work", pt.raw_work);
  write_stats(j, "span", pt.span);
  write_stats(j, "burdened_span", pt.burdened_span);
  write_stats(j, "spawns", pt.spawns);
  j.member("diagnostic_count", pt.diagnostic_count);
  j.member("parallel_work", pt.parallel_work);
  j.member("idle_time", pt.idle_time);
  j.member("work_inflation", pt.work_inflation);
  write_stats(j, "idle", pt.idle);
  write_stats(j, "inflation", pt.inflation);
  j.key("speedup");
  j.begin_object();
  j.member("linear", pt.speedup.linear);
  j.member("elision", pt.speedup.elision);
  j.member("maximal", pt.speedup.maximal);
  j.member("idle_specific", pt.speedup.idle_specific);
  j.member("inflation_specific", pt.speedup.inflation_specific);
  j.member("actual", pt.speedup.actual);
  j.member("actual_low", pt.actual_low);
  j.member("actual_high", pt.actual_high);
  j.end_object();
  j.key("self_speedup");
  j.begin_object();
  j.member("value", pt.self_speedup);
  j.member("low", pt.self_low);
  j.member("high", pt.self_high);
  j.end_object();
  j.end_object();
}

inline void write_bounds(output::json_writer& j, const study_bounds& bounds) {
  j.key("bounds");
  j.begin_object();
  j.member("work", bounds.work);
  j.member("span", bounds.span);
  j.member("burdened_span", bounds.burdened_span);
  j.member("parallelism", bounds.parallelism);
  j.member("burdened_parallelism", bounds.burdened_parallelism);
  j.end_object();
}

inline void write_bandwidth_probe(output::json_writer& j, const sample_stats& alone,
                                  const std::vector<bandwidth_point>& bandwidth) {
  j.key("bandwidth_probe");
  j.begin_object();
  write_stats(j, "alone", alone);
  j.key("runs");
  j.begin_array();
  for (const auto& b : bandwidth) {
    begin_run(j, "copies", b.copies, b.oversubscribed);
    write_stats(j, "together", b.together);
    j.member("slowdown", b.slowdown);
    j.end_object();
  }
  j.end_array();
  j.end_object();
}

inline void write_profile(output::json_writer& j, const report& profile) {
  j.key("profile");
  if (profile.empty()) {
    j.value_raw("null");
  } else {
    // The report's own JSON, re-indented into this document (no size limits:
    // forkscale wrote it).
    json::limits unlimited;
    unlimited.max_bytes = static_cast<std::size_t>(-1);
    unlimited.max_values = static_cast<std::size_t>(-1);
    json::write_value(j, json::parse(profile.to_json(), unlimited));
  }
}

}  // namespace study
}  // namespace detail

FORKSCALE_INLINE std::string study_result::to_json() const {
  namespace ds = detail::study;
  detail::output::json_writer j;
  j.begin_object();
  j.member("schema", "forkscale.study");
  j.member("schema_version", std::uint64_t{1});
  j.member("forkscale_version", FORKSCALE_VERSION_STRING);
  j.member("label", label);
  j.member("unit", unit);
  j.member("clock", to_string(clock));
  j.member("hardware_threads", static_cast<std::uint64_t>(hardware_threads));
  j.member("repetitions", static_cast<std::uint64_t>(repetitions));
  j.member("warmup", static_cast<std::uint64_t>(warmup));
  j.member("work_measure", compensated_work ? "work" : "raw_work");
  ds::write_stats(j, "baseline", baseline);
  ds::write_stats(j, "elision", elision);
  j.key("runs");
  j.begin_array();
  for (const auto& pt : points) ds::write_point(j, pt);
  j.end_array();
  ds::write_bounds(j, bounds);
  ds::write_bandwidth_probe(j, probe_alone, bandwidth);
  ds::write_profile(j, profile);
  ds::write_prediction(j, prediction);
  j.key("warnings");
  j.begin_array();
  for (const auto& wmsg : warnings) j.value(wmsg);
  j.end_array();
  j.end_object();
  return j.finish();
}

FORKSCALE_INLINE void study_result::write_json(const std::string& path) const {
  detail::write_file_atomically(path, to_json());
}

// ---- reading ------------------------------------------------------------------------

namespace detail {
namespace study {

inline sample_stats read_stats(const json::object_reader& parent, const char* key) {
  const json::object_reader r(parent.object(key), parent.path(key));
  const json::value& arr = r.array("samples");
  std::vector<double> samples;
  samples.reserve(arr.items.size());
  for (std::size_t i = 0; i < arr.items.size(); ++i)
    samples.push_back(
        json::object_reader::number_of(arr.items[i], r.path("samples") + "[" + std::to_string(i) + "]", false));
  sample_stats s = sample_stats::of(std::move(samples));
  const auto check = [&](const char* k, double recomputed) {
    json::check_derived(r.required(k), r.path(k), r.number(k, true), recomputed);
  };
  check("mean", s.mean);
  check("median", s.median);
  check("min", s.min);
  check("max", s.max);
  check("stddev", s.stddev);
  return s;
}

inline void check_stats(const json::object_reader& parent, const char* key, const sample_stats& recomputed) {
  const sample_stats stated = read_stats(parent, key);
  const json::value& at = parent.required(key);
  if (stated.samples.size() != recomputed.samples.size())
    throw json::json_error(at.offset, parent.path(key) + " has " + std::to_string(stated.samples.size()) +
                                          " samples, but the file's own data give " +
                                          std::to_string(recomputed.samples.size()) + " (the file is inconsistent)");
  const json::object_reader r(at, parent.path(key));
  for (std::size_t i = 0; i < stated.samples.size(); ++i)
    json::check_derived(r.array("samples").items[i], r.path("samples") + "[" + std::to_string(i) + "]",
                        stated.samples[i], recomputed.samples[i]);
}

inline void check_number(const json::object_reader& r, const char* key, double recomputed) {
  json::check_derived(r.required(key), r.path(key), r.number(key, true), recomputed);
}

// The study's settings, and its baseline and elision times.
inline void read_settings(const json::object_reader& top, study_result& s) {
  s.label = top.str("label");
  s.unit = top.str("unit");
  if (s.unit != "ns")
    throw json::json_error(top.required("unit").offset,
                           "unit: expected \"ns\", found " + json::quote_for_message(s.unit));
  s.clock = json::clock_from_name(top, "clock");
  s.hardware_threads = top.u32("hardware_threads");
  s.repetitions = top.u32("repetitions");
  s.warmup = top.u32("warmup");
  const std::string measure = top.str("work_measure");
  if (measure != "work" && measure != "raw_work")
    throw json::json_error(
        top.required("work_measure").offset,
        "work_measure: expected \"work\" or \"raw_work\", found " + json::quote_for_message(measure));
  s.compensated_work = measure == "work";
  s.baseline = read_stats(top, "baseline");
  s.elision = read_stats(top, "elision");
}

// runs[i], the samples at one P, after the points before it in s.
inline study_point read_point(const json::object_reader& r, std::size_t i, const study_result& s) {
  study_point pt;
  pt.processors = r.u32("processors");
  if (pt.processors == 0 || (i > 0 && pt.processors <= s.points.back().processors))
    throw json::json_error(r.required("processors").offset,
                           r.path("processors") + ": the thread counts must be positive and ascending");
  if (i == 0 && pt.processors != 1)
    throw json::json_error(r.required("processors").offset, r.path("processors") + ": the first run must be P = 1");
  pt.oversubscribed = r.boolean("oversubscribed");
  pt.time = read_stats(r, "time");
  pt.work = read_stats(r, "work");
  pt.raw_work = read_stats(r, "raw_work");
  pt.span = read_stats(r, "span");
  pt.burdened_span = read_stats(r, "burdened_span");
  pt.spawns = read_stats(r, "spawns");
  const sample_stats& wp = s.compensated_work ? pt.work : pt.raw_work;
  if (!wp.empty() && wp.count() != pt.time.count())
    throw json::json_error(r.required("time").offset,
                           r.path("time") + " and the work have different numbers of samples");
  pt.diagnostic_count = r.u64("diagnostic_count");
  return pt;
}

inline std::string run_path(const char* where, std::size_t i) { return where + ("[" + std::to_string(i) + "]"); }

inline void read_points(const json::object_reader& top, study_result& s) {
  const json::value& runs = top.array("runs");
  for (std::size_t i = 0; i < runs.items.size(); ++i)
    s.points.push_back(read_point(json::object_reader(runs.items[i], run_path("runs", i)), i, s));
}

inline void read_bandwidth_probe(const json::object_reader& top, study_result& s) {
  const json::object_reader probe(top.object("bandwidth_probe"), "bandwidth_probe");
  s.probe_alone = read_stats(probe, "alone");
  const json::value& bruns = probe.array("runs");
  for (std::size_t i = 0; i < bruns.items.size(); ++i) {
    const json::object_reader r(bruns.items[i], run_path("bandwidth_probe.runs", i));
    bandwidth_point b;
    b.copies = r.u32("copies");
    b.oversubscribed = r.boolean("oversubscribed");
    b.together = read_stats(r, "together");
    s.bandwidth.push_back(std::move(b));
  }
}

inline void read_warnings(const json::object_reader& top, study_result& s) {
  const json::value& warns = top.array("warnings");
  for (std::size_t i = 0; i < warns.items.size(); ++i) {
    const json::value& m = warns.items[i];
    if (!m.is(json::kind::string))
      throw json::json_error(
          m.offset, "warnings[" + std::to_string(i) + "]: expected a string, found " + json::kind_name(m.type));
    s.warnings.push_back(m.text);
  }
}

// The derived numbers runs[i] states must be the ones its samples give.
inline void check_point(const json::object_reader& r, const study_point& pt) {
  check_number(r, "parallel_work", pt.parallel_work);
  check_number(r, "idle_time", pt.idle_time);
  check_number(r, "work_inflation", pt.work_inflation);
  check_stats(r, "idle", pt.idle);
  check_stats(r, "inflation", pt.inflation);
  const json::object_reader sp(r.object("speedup"), r.path("speedup"));
  check_number(sp, "linear", pt.speedup.linear);
  check_number(sp, "elision", pt.speedup.elision);
  check_number(sp, "maximal", pt.speedup.maximal);
  check_number(sp, "idle_specific", pt.speedup.idle_specific);
  check_number(sp, "inflation_specific", pt.speedup.inflation_specific);
  check_number(sp, "actual", pt.speedup.actual);
  check_number(sp, "actual_low", pt.actual_low);
  check_number(sp, "actual_high", pt.actual_high);
  const json::object_reader self(r.object("self_speedup"), r.path("self_speedup"));
  check_number(self, "value", pt.self_speedup);
  check_number(self, "low", pt.self_low);
  check_number(self, "high", pt.self_high);
}

// Every derived number the file states must be what its samples give (s recomputed).
inline void check_derived_numbers(const json::object_reader& top, const study_result& s) {
  const json::value& runs = top.array("runs");
  for (std::size_t i = 0; i < runs.items.size(); ++i)
    check_point(json::object_reader(runs.items[i], run_path("runs", i)), s.points[i]);
  const json::value& bruns = json::object_reader(top.object("bandwidth_probe"), "bandwidth_probe").array("runs");
  for (std::size_t i = 0; i < bruns.items.size(); ++i) {
    const json::object_reader r(bruns.items[i], run_path("bandwidth_probe.runs", i));
    check_number(r, "slowdown", s.bandwidth[i].slowdown);
  }
  const json::object_reader b(top.object("bounds"), "bounds");
  check_number(b, "work", s.bounds.work);
  check_number(b, "span", s.bounds.span);
  check_number(b, "burdened_span", s.bounds.burdened_span);
  check_number(b, "parallelism", s.bounds.parallelism);
  check_number(b, "burdened_parallelism", s.bounds.burdened_parallelism);
}

FORKSCALE_INLINE study_result study_from_value(const json::value& v) {
  const json::object_reader top(v, "");
  json::check_schema(top, "forkscale.study", 1);
  study_result s;
  read_settings(top, s);
  read_points(top, s);
  read_bandwidth_probe(top, s);
  const json::value& prof = top.required("profile");
  if (!prof.is(json::kind::null)) s.profile = json::report_from_value(prof, "profile");
  read_warnings(top, s);
  read_prediction(top, s);
  s.recompute();
  check_derived_numbers(top, s);
  check_prediction(top, s);
  return s;
}

}  // namespace study
}  // namespace detail

FORKSCALE_INLINE study_result study_from_json(const std::string& text) {
  try {
    return detail::study::study_from_value(detail::json::parse(text));
  } catch (const detail::json::json_error& e) {
    throw error(std::string("forkscale: invalid study JSON: ") + e.what());
  }
}

FORKSCALE_INLINE study_result read_study(const std::string& path) {
  const std::string text = detail::json::read_file(path, "study");
  try {
    return detail::study::study_from_value(detail::json::parse(text));
  } catch (const detail::json::json_error& e) {
    throw error("forkscale: cannot read study '" + detail::printable_path(path) + "': " + e.what());
  }
}

#endif  // FORKSCALE_DETAIL_DEFINES

FORKSCALE_NAMESPACE_END
