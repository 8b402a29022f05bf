// detail/input/record_reader.hpp: the "record" member of a JSON report read
// back into report::record (layout in docs/report-schema.md, written by
// detail/output/json_record.hpp). Every row must have its columns with the
// right types, and every index must point inside its table: a file that passes
// can be walked without bounds checks. Problems are json_errors naming the row
// and the column ("record.strands[3][7] (prev): 12 is not -1 or an index into
// strands (10 rows)").
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "../../config.hpp"
#include "../../record.hpp"
#include "json_value.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace json {

// The cells of one row of a record table, with the names of its columns for
// messages.
class row_reader {
 public:
  row_reader(const value& v, std::string where, const char* const* columns, std::size_t count)
      : v_(v), where_(std::move(where)), columns_(columns) {
    if (!v.is(kind::array))
      throw json_error(v.offset, where_ + ": expected an array (a row), found " + kind_name(v.type));
    if (v.items.size() != count)
      throw json_error(v.offset, where_ + ": expected a row of " + std::to_string(count) + " columns, found " +
                                     std::to_string(v.items.size()));
  }

  std::string path(std::size_t k) const { return where_ + "[" + std::to_string(k) + "] (" + columns_[k] + ")"; }
  const value& cell(std::size_t k) const { return v_.items[k]; }

  std::uint64_t u64(std::size_t k) const {
    std::uint64_t out = 0;
    if (number_as_u64(cell(k), out)) return out;
    throw json_error(cell(k).offset, path(k) + ": expected an unsigned 64-bit integer, found " + found(cell(k)));
  }
  std::uint32_t u32(std::size_t k) const {
    const std::uint64_t v = u64(k);
    if (v > 0xFFFFFFFFu) throw json_error(cell(k).offset, path(k) + ": " + std::to_string(v) + " is too large");
    return static_cast<std::uint32_t>(v);
  }
  std::int64_t i64(std::size_t k) const {
    std::int64_t out = 0;
    if (number_as_i64(cell(k), out)) return out;
    throw json_error(cell(k).offset, path(k) + ": expected a signed 64-bit integer, found " + found(cell(k)));
  }
  std::string str(std::size_t k) const {
    if (!cell(k).is(kind::string))
      throw json_error(cell(k).offset, path(k) + ": expected a string, found " + kind_name(cell(k).type));
    return cell(k).text;
  }
  bool boolean(std::size_t k) const {
    if (!cell(k).is(kind::boolean))
      throw json_error(cell(k).offset, path(k) + ": expected true or false, found " + kind_name(cell(k).type));
    return cell(k).boolean;
  }
  // An index into a table of `size` rows (`table`: "strands"); -1 too when `none_ok`.
  std::int64_t index(std::size_t k, std::size_t size, const char* table, bool none_ok) const {
    const std::int64_t v = none_ok ? i64(k) : static_cast<std::int64_t>(u32(k));
    if ((v < 0 && !(none_ok && v == -1)) || (v >= 0 && static_cast<std::uint64_t>(v) >= size))
      throw json_error(cell(k).offset, path(k) + ": " + std::to_string(v) + " is not " + (none_ok ? "-1 or " : "") +
                                           "an index into " + table + " (" + std::to_string(size) + " rows)");
    return v;
  }
  // A row's cell that is itself a list of indices into a table of `size` rows.
  std::vector<std::uint32_t> indices(std::size_t k, std::size_t size, const char* table) const {
    const value& a = cell(k);
    if (!a.is(kind::array))
      throw json_error(a.offset,
                       path(k) + ": expected an array of indices into " + table + ", found " + kind_name(a.type));
    std::vector<std::uint32_t> out;
    out.reserve(a.items.size());
    for (std::size_t m = 0; m < a.items.size(); ++m) {
      std::uint64_t v = 0;
      const std::string at = path(k) + "[" + std::to_string(m) + "]";
      if (!number_as_u64(a.items[m], v))
        throw json_error(a.items[m].offset,
                         at + ": expected an index into " + std::string(table) + ", found " + found(a.items[m]));
      if (v >= size)
        throw json_error(a.items[m].offset, at + ": " + std::to_string(v) + " is not an index into " + table + " (" +
                                                std::to_string(size) + " rows)");
      out.push_back(static_cast<std::uint32_t>(v));
    }
    return out;
  }

 private:
  static std::string found(const value& v) {
    return v.is(kind::number) ? quote_for_message(v.text) : std::string(kind_name(v.type));
  }
  const value& v_;
  std::string where_;
  const char* const* columns_;
};

// The rows of one table of the record (an array member of `rec`).
template <std::size_t N, typename Read>
void read_rows(const object_reader& rec, const char* key, const char* const (&columns)[N], Read read) {
  const value& a = rec.array(key);
  for (std::size_t i = 0; i < a.items.size(); ++i)
    read(row_reader(a.items[i], rec.path(key) + "[" + std::to_string(i) + "]", columns, N));
}

inline record_frame::kind_type frame_kind_from(const row_reader& row, std::size_t k) {
  const std::string name = row.str(k);
  if (name == "root") return record_frame::kind_type::root;
  if (name == "call") return record_frame::kind_type::call;
  if (name == "spawn") return record_frame::kind_type::spawn;
  throw json_error(row.cell(k).offset,
                   row.path(k) + ": unknown frame kind " + quote_for_message(name) + " (expected root, call or spawn)");
}

// The sizes of the record's tables, known before any row is read (rows refer
// to tables that come after them).
struct record_sizes {
  std::size_t sites, frames, threads, tasks, strands, joins;
};

inline void read_record_graph(const object_reader& rec, const record_sizes& n, execution_record& r) {
  static const char* const sites[] = {"name", "file", "line", "function", "tag"};
  read_rows(rec, "sites", sites, [&](const row_reader& row) {
    r.sites.push_back(record_site{row.str(0), row.str(1), row.u32(2), row.str(3), row.str(4)});
  });
  static const char* const frames[] = {"parent", "kind", "site", "depth"};
  read_rows(rec, "frames", frames, [&](const row_reader& row) {
    // A tree rooted at node 0: every other node's parent comes before it.
    const std::size_t k = r.frames.size();
    record_frame f;
    f.parent = static_cast<std::uint32_t>(row.index(0, k == 0 ? 1 : k, "the frames before it", false));
    f.kind = frame_kind_from(row, 1);
    if ((k == 0) != (f.kind == record_frame::kind_type::root))
      throw json_error(row.cell(1).offset,
                       row.path(1) + (k == 0 ? ": frame 0 must be the root" : ": only frame 0 is the root"));
    f.site = f.kind == record_frame::kind_type::root
                 ? row.u32(2)
                 : static_cast<std::uint32_t>(row.index(2, n.sites, "sites", false));
    f.depth = row.u32(3);
    r.frames.push_back(f);
  });
  static const char* const threads[] = {"os_id", "busy_ns"};
  read_rows(rec, "threads", threads, [&](const row_reader& row) {
    r.threads.push_back(record_thread{row.u64(0), row.u64(1)});
  });
  static const char* const tasks[] = {"parent", "frame", "first", "last"};
  read_rows(rec, "tasks", tasks, [&](const row_reader& row) {
    record_task t;
    t.parent = row.index(0, n.tasks, "tasks", true);
    t.frame = static_cast<std::uint32_t>(row.index(1, n.frames, "frames", false));
    t.first = static_cast<std::uint32_t>(row.index(2, n.strands, "strands", false));
    t.last = static_cast<std::uint32_t>(row.index(3, n.strands, "strands", false));
    r.tasks.push_back(t);
  });
}

inline void read_record_strands(const object_reader& rec, const record_sizes& n, execution_record& r) {
  static const char* const strands[] = {"thread", "frame", "task", "start_ns",      "end_ns",      "work",
                                        "span",   "prev",  "join", "critical_pred", "after_spawn", "critical"};
  read_rows(rec, "strands", strands, [&](const row_reader& row) {
    record_strand s;
    s.thread = static_cast<std::uint32_t>(row.index(0, n.threads, "threads", false));
    s.frame = static_cast<std::uint32_t>(row.index(1, n.frames, "frames", false));
    s.task = static_cast<std::uint32_t>(row.index(2, n.tasks, "tasks", false));
    s.start_ns = row.u64(3);
    s.end_ns = row.u64(4);
    if (s.end_ns < s.start_ns)
      throw json_error(row.cell(4).offset, row.path(4) + ": " + std::to_string(s.end_ns) + " is before start_ns " +
                                               std::to_string(s.start_ns));
    s.work = row.u64(5);
    s.span = row.u64(6);
    s.prev = row.index(7, n.strands, "strands", true);
    s.join = row.index(8, n.joins, "joins", true);
    s.critical_pred = row.index(9, n.strands, "strands", true);
    s.after_spawn = row.boolean(10);
    s.critical = row.boolean(11);
    r.strands.push_back(s);
  });
  static const char* const joins[] = {"site", "thread", "wait_start_ns", "wait_end_ns", "strands", "joins"};
  read_rows(rec, "joins", joins, [&](const row_reader& row) {
    record_join o;
    o.site = row.index(0, n.sites, "sites", true);
    o.thread = static_cast<std::uint32_t>(row.index(1, n.threads, "threads", false));
    o.wait_start_ns = row.u64(2);
    o.wait_end_ns = row.u64(3);
    o.strands = row.indices(4, n.strands, "strands");
    o.joins = row.indices(5, n.joins, "joins");
    r.joins.push_back(std::move(o));
  });
  static const char* const regions[] = {"path", "thread", "start_ns", "end_ns"};
  read_rows(rec, "regions", regions, [&](const row_reader& row) {
    r.regions.push_back(forkscale::record_region{
        row.str(0), static_cast<std::uint32_t>(row.index(1, n.threads, "threads", false)), row.u64(2), row.u64(3)});
  });
}

// The critical path: strand indices, each strand on it flagged critical and no
// other.
inline void read_critical_path(const object_reader& rec, execution_record& r) {
  const value& a = rec.array("critical_path");
  std::vector<char> on(r.strands.size(), 0);
  for (std::size_t m = 0; m < a.items.size(); ++m) {
    std::uint64_t v = 0;
    const std::string at = rec.path("critical_path") + "[" + std::to_string(m) + "]";
    if (!number_as_u64(a.items[m], v) || v >= r.strands.size())
      throw json_error(a.items[m].offset, at + ": expected a strand index below " + std::to_string(r.strands.size()));
    if (on[v]) throw json_error(a.items[m].offset, at + ": strand " + std::to_string(v) + " is on the path twice");
    on[v] = 1;
    r.critical_path.push_back(static_cast<std::uint32_t>(v));
  }
  for (std::size_t i = 0; i < r.strands.size(); ++i)
    if (r.strands[i].critical != (on[i] != 0))
      throw json_error(a.offset, rec.path("strands") + "[" + std::to_string(i) + "] (critical) is " +
                                     (r.strands[i].critical ? "true" : "false") + " but the strand is " +
                                     (on[i] ? "on" : "not on") + " the critical path (the file is inconsistent)");
}

// report::record from the "record" member (absent: no record). `unit` is the
// report's, which the record's must equal.
inline std::shared_ptr<const execution_record> record_from(const object_reader& top, const std::string& unit) {
  const value* v = top.optional("record");
  if (!v) return nullptr;
  const object_reader rec(*v, top.path("record"));
  auto r = std::make_shared<execution_record>();
  r->complete = rec.boolean("complete");
  r->limit_bytes = rec.u64("limit_bytes");
  if (rec.optional("trace_limit")) r->trace_limit = rec.u64("trace_limit");  // absent: written before the bound
  r->bytes = rec.u64("bytes");
  r->dropped_strands = rec.u64("dropped_strands");
  r->unit = rec.str("unit");
  if (r->unit != unit)
    throw json_error(rec.required("unit").offset, rec.path("unit") + ": " + quote_for_message(r->unit) +
                                                      " differs from the report's unit " + quote_for_message(unit));
  r->wall_ns = rec.u64("wall_ns");
  const record_sizes n{rec.array("sites").items.size(),   rec.array("frames").items.size(),
                       rec.array("threads").items.size(), rec.array("tasks").items.size(),
                       rec.array("strands").items.size(), rec.array("joins").items.size()};
  read_record_graph(rec, n, *r);
  read_record_strands(rec, n, *r);
  read_critical_path(rec, *r);
  return r;
}

}  // namespace json
}  // namespace detail
FORKSCALE_NAMESPACE_END
