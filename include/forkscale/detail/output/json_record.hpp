// detail/output/json_record.hpp: the "record" member of a JSON report (present
// only when the report has a record; layout in docs/report-schema.md). Tables
// are arrays of rows, one row per line, each row an array in a fixed column
// order, so that a record of many strands stays compact; the reader
// (detail/input/record_reader.hpp) reads the same layout back.
#pragma once
#include <cstdint>
#include <string>

#include "../../config.hpp"
#include "../../record.hpp"
#include "../../report.hpp"
#include "format.hpp"
#include "json_writer.hpp"
#include "trace_plan.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace output {

inline const char* frame_kind_name(record_frame::kind_type k) noexcept {
  return k == record_frame::kind_type::root ? "root" : k == record_frame::kind_type::call ? "call" : "spawn";
}

// One row: its cells joined by ',' in brackets.
class json_row {
 public:
  json_row& u(std::uint64_t v) { return cell(std::to_string(v)); }
  json_row& i(std::int64_t v) { return cell(std::to_string(v)); }
  json_row& b(bool v) { return cell(bool_text(v)); }
  json_row& s(const std::string& v) { return cell(json_string(v)); }
  json_row& raw(const std::string& v) { return cell(v); }
  std::string text() const { return "[" + out_ + "]"; }

 private:
  json_row& cell(const std::string& v) {
    if (!out_.empty()) out_ += ',';
    out_ += v;
    return *this;
  }
  std::string out_;
};

// A list of indices as one row.
template <typename T>
std::string json_index_row(const std::vector<T>& v) {
  json_row r;
  for (const T x : v) r.u(x);
  return r.text();
}

inline void json_record_tables(json_writer& j, const execution_record& r) {
  const auto table = [&j](const char* name, std::size_t n, auto&& row) {
    j.key(name);
    j.begin_array();
    for (std::size_t k = 0; k < n; ++k) j.value_raw(row(k).text());
    j.end_array();
  };
  table("sites", r.sites.size(), [&](std::size_t k) {
    const record_site& s = r.sites[k];
    return json_row().s(s.name).s(s.file).u(s.line).s(s.function).s(s.tag);
  });
  table("frames", r.frames.size(), [&](std::size_t k) {
    const record_frame& f = r.frames[k];
    return json_row().u(f.parent).s(frame_kind_name(f.kind)).u(f.site).u(f.depth);
  });
  table("threads", r.threads.size(),
        [&](std::size_t k) { return json_row().u(r.threads[k].os_id).u(r.threads[k].busy_ns); });
  table("tasks", r.tasks.size(), [&](std::size_t k) {
    const record_task& t = r.tasks[k];
    return json_row().i(t.parent).u(t.frame).u(t.first).u(t.last);
  });
  table("strands", r.strands.size(), [&](std::size_t k) {
    const record_strand& s = r.strands[k];
    return json_row()
        .u(s.thread)
        .u(s.frame)
        .u(s.task)
        .u(s.start_ns)
        .u(s.end_ns)
        .u(s.work)
        .u(s.span)
        .i(s.prev)
        .i(s.join)
        .i(s.critical_pred)
        .b(s.after_spawn)
        .b(s.critical);
  });
  table("joins", r.joins.size(), [&](std::size_t k) {
    const record_join& o = r.joins[k];
    return json_row()
        .i(o.site)
        .u(o.thread)
        .u(o.wait_start_ns)
        .u(o.wait_end_ns)
        .raw(json_index_row(o.strands))
        .raw(json_index_row(o.joins));
  });
  table("regions", r.regions.size(), [&](std::size_t k) {
    const forkscale::record_region& g = r.regions[k];
    return json_row().s(g.path).u(g.thread).u(g.start_ns).u(g.end_ns);
  });
}

// "record": the report's record (docs/report-schema.md, "record").
inline void json_record(json_writer& j, const execution_record& r) {
  j.key("record");
  j.begin_object();
  j.key("complete");
  j.value_raw(bool_text(r.complete));
  j.member("limit_bytes", r.limit_bytes);
  j.member("trace_limit", r.trace_limit);
  {
    // What the trace of this record folds (trace_plan.hpp); computed, so never read back.
    const trace_plan plan = plan_trace(r, false);
    j.key("trace");
    j.begin_object();
    j.member("strands_written", plan.kept);
    j.member("strands_folded", plan.folded);
    j.member("summary", trace_plan_summary(plan));
    j.end_object();
  }
  j.member("bytes", r.bytes);
  j.member("dropped_strands", r.dropped_strands);
  j.member("unit", r.unit);
  j.member("wall_ns", r.wall_ns);
  json_record_tables(j, r);
  // The critical path, twenty strand indices to a line (each piece is written as
  // one element of the array; the writer's commas join the pieces).
  j.key("critical_path");
  j.begin_array();
  for (std::size_t k = 0; k < r.critical_path.size(); k += 20) {
    std::string piece;
    for (std::size_t m = k; m < r.critical_path.size() && m < k + 20; ++m)
      piece += (m == k ? "" : ",") + std::to_string(r.critical_path[m]);
    j.value_raw(piece);
  }
  j.end_array();
  j.end_object();
}

}  // namespace output
}  // namespace detail
FORKSCALE_NAMESPACE_END
