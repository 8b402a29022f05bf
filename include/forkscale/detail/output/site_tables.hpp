// detail/output/site_tables.hpp: the per-site profiles in text: the call-site
// and spawn-site tables, the profile's self-checks, and report::sites_text and
// report::check_profile.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "../../config.hpp"
#include "../../report.hpp"
#include "format.hpp"
#include "text_table.hpp"
#include "utf8.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace output {

// The site tables: exact numbers with each site's whole label when that fits in
// 80 columns, else short numbers, else short numbers with the labels shortened to
// the room the numbers leave (`build(short_numbers, label_width)`; see
// site_label): the functions stay, the names and functions are cut.
template <typename Build>
std::string fitted_site_columns(Build build) {
  constexpr std::size_t no_limit = std::string::npos;
  constexpr std::size_t min_label_width = 12;
  const text_table exact = build(false, no_limit);
  if (exact.natural_width() <= text_table::line_width) return exact.render();
  const text_table rounded = build(true, no_limit);
  const std::size_t width = rounded.natural_width();
  if (width <= text_table::line_width) return rounded.render() + rounded_note;
  const std::size_t others = width - rounded.column_width(0);
  const std::size_t room = others < text_table::line_width ? text_table::line_width - others : 0;
  return build(true, std::max(room, min_label_width)).render() + rounded_note +
         "  (names shortened to fit 80 columns: the CSV and JSON have them whole)\n";
}

// `part` as a percentage of `whole`; "n/a" when `whole` is 0.
inline std::string share_text(std::int64_t part, std::uint64_t whole) {
  if (!whole) return "n/a";
  return percent_text(100.0 * static_cast<double>(part) / static_cast<double>(whole));
}

// `name` in at most `width` columns: a file:line name keeps its line and the start
// of its file ("quicks...:121"), any other name (a tag) its start.
inline std::string shortened_site_name(const std::string& name, std::size_t width) {
  if (display_width(name) <= width) return name;
  const std::size_t colon = name.rfind(':');
  const bool has_line = colon != std::string::npos && colon + 1 < name.size() &&
                        name.find_first_not_of("0123456789", colon + 1) == std::string::npos;
  const std::size_t line_width = has_line ? name.size() - colon : 0;
  if (has_line && width > line_width)
    return truncate_display(name.substr(0, colon), width - line_width) + name.substr(colon);
  return truncate_display(name, width);
}

// `function` in at most `width` columns. The name of a template instance keeps
// its end too ("spawn_l...<double>"): the rows of one line instantiated several
// times differ only there. Other names (and names not in ASCII) keep their start.
inline std::string shortened_function(const std::string& function, std::size_t width) {
  if (display_width(function) <= width) return function;
  const std::size_t angle = function.find('<');
  if (angle == std::string::npos || width < 6 || display_width(function) != function.size())
    return truncate_display(function, width);
  const std::size_t room = width - 3;
  const std::size_t arguments = function.size() - angle;
  const std::size_t head = arguments + 1 <= room ? room - arguments : room / 3;
  return function.substr(0, head) + "..." + function.substr(function.size() - (room - head));
}

// A site as the tables name it: "(root)" for the root row; otherwise its name
// (the tag, or file:line) and the function it is in, "spawn " first for the rows
// of spawn sites in the call-site table — in at most `width` columns. When the
// whole label is wider, the name and the function share the room: each keeps its
// whole width if the other leaves it that much, else it gets half ("..." marks a
// cut; a file:line name keeps its line). The function is never left out.
inline std::string site_label(site_kind kind, const std::string& name, const std::string& function, bool mark_spawn,
                              std::size_t width = std::string::npos) {
  if (kind == site_kind::root) return "(root)";
  const std::string prefix = mark_spawn && kind == site_kind::spawn ? "spawn " : "";
  const std::string n = name.empty() ? std::string("(unnamed)") : printable(name);
  const std::string f = printable(function);
  std::string whole = prefix + n + (f.empty() ? "" : " in " + f);
  if (display_width(whole) <= width) return whole;
  const std::size_t fixed = prefix.size() + (f.empty() ? 0 : 4);
  if (width < fixed + 2) return truncate_display(whole, width);
  const std::size_t room = width - fixed;
  if (f.empty()) return prefix + shortened_site_name(n, room);
  const std::size_t name_width = display_width(n), function_width = display_width(f), half = room / 2;
  const std::size_t function_room = function_width <= half      ? function_width
                                    : name_width <= room - half ? room - name_width
                                                                : half;
  return prefix + shortened_site_name(n, room - function_room) + " in " + shortened_function(f, function_room);
}

// The rows a table shows, in order: sorted by `key`, largest first (ties keep the
// rows' order); every root row, and at most `top_n` others. `hidden` gets the
// number of rows left out.
template <typename Row, typename Key>
std::vector<std::size_t> top_rows(const std::vector<Row>& rows, std::size_t top_n, Key key, std::size_t& hidden) {
  std::vector<std::size_t> order(rows.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return key(rows[a]) > key(rows[b]); });
  std::vector<std::size_t> shown;
  std::size_t others = 0;
  hidden = 0;
  for (const std::size_t i : order) {
    if (rows[i].kind == site_kind::root) {
      shown.push_back(i);
    } else if (others < top_n) {
      shown.push_back(i);
      ++others;
    } else {
      ++hidden;
    }
  }
  return shown;
}

// A sum of signed or unsigned 64-bit values, exact, with overflow noticed.
class exact_sum {
 public:
  void add(std::int64_t v) noexcept { add_to(v < 0 ? minus_ : plus_, magnitude(v)); }
  void add(std::uint64_t v) noexcept { add_to(plus_, v); }
  bool overflow() const noexcept { return overflow_; }
  bool equals(std::uint64_t total) const noexcept { return !overflow_ && plus_ >= minus_ && plus_ - minus_ == total; }
  std::string text() const {
    return plus_ >= minus_ ? std::to_string(plus_ - minus_) : "-" + std::to_string(minus_ - plus_);
  }

 private:
  void add_to(std::uint64_t& s, std::uint64_t v) noexcept {
    if (s > static_cast<std::uint64_t>(-1) - v)
      overflow_ = true;
    else
      s += v;
  }
  std::uint64_t plus_ = 0, minus_ = 0;
  bool overflow_ = false;
};

// One self-check: "" when `sum` equals `total`, else what failed.
inline std::string sum_check(const char* table, const char* column, std::size_t rows, const exact_sum& sum,
                             const char* total_name, std::uint64_t total) {
  if (sum.equals(total)) return std::string();
  return std::string(table) + ": " + column + (sum.overflow() ? " overflows 64 bits" : " sums to " + sum.text()) +
         " over " + std::to_string(rows) + (rows == 1 ? " row" : " rows") + ", but " + total_name + " is " +
         std::to_string(total);
}

// Span within work, per site: an invocation's span grows only by its own
// strands and by what it joins, whose work it counts, so each summed
// measurement's span is at most its work. "" when every row holds, else the
// rows that do not (the first three named).
inline std::string span_within_work_check(const report& rep) {
  std::size_t bad = 0;
  std::string named;
  const auto check = [&](const std::string& name, const char* column, const site_measure& m) {
    if (m.span <= 0 || static_cast<std::uint64_t>(m.span) <= m.work) return;
    if (++bad <= 3)
      named += (named.empty() ? "" : "; ") + name + " (" + column + ": span " + std::to_string(m.span) + ", work " +
               std::to_string(m.work) + ")";
  };
  for (const auto& c : rep.call_sites) {
    check(c.name, "top-call-site on work", c.top_call_site_on_work);
    check(c.name, "top-call-site on span", c.top_call_site_on_span);
    check(c.name, "top-caller on work", c.top_caller_on_work);
    check(c.name, "top-caller on span", c.top_caller_on_span);
  }
  for (const auto& p : rep.spawn_sites)
    check(p.name, "spawn site", site_measure{p.tasks, p.work, static_cast<std::int64_t>(p.span)});
  if (bad == 0) return std::string();
  return "span above work at " + std::to_string(bad) + (bad == 1 ? " site measurement: " : " site measurements: ") +
         named + (bad > 3 ? "; ..." : "");
}

// The profile's self-checks that fail (docs/model.md, "Self-checks"): none
// when it holds or when the report has no site rows.
inline std::vector<std::string> profile_check_failures(const report& rep) {
  std::vector<std::string> failed;
  if (rep.call_sites.empty() && rep.spawn_sites.empty()) return failed;
  exact_sum local_span, local_work, critical_span, exclusive_work;
  for (const auto& c : rep.call_sites) {
    local_span.add(c.local_on_span.span);
    local_work.add(c.local_on_work.work);
  }
  for (const auto& p : rep.spawn_sites) {
    critical_span.add(p.critical_span);
    exclusive_work.add(p.exclusive_work);
  }
  const std::size_t calls = rep.call_sites.size(), spawns = rep.spawn_sites.size();
  for (std::string c : {sum_check("call sites", "local span on span", calls, local_span, "the span", rep.span()),
                        sum_check("call sites", "local work on work", calls, local_work, "the work", rep.work()),
                        sum_check("spawn sites", "critical span", spawns, critical_span, "the span", rep.span()),
                        sum_check("spawn sites", "exclusive work", spawns, exclusive_work, "the work", rep.work()),
                        span_within_work_check(rep)})
    if (!c.empty()) failed.push_back(std::move(c));
  return failed;
}

// The line under a table that left `hidden` rows out: "  (3 more call sites not
// shown)"; nothing when it left none out.
inline std::string not_shown_note(std::size_t hidden, const char* what) {
  if (!hidden) return std::string();
  return "  (" + grouped(hidden) + " more " + what + (hidden == 1 ? "" : "s") + " not shown)\n";
}

// A site section: its heading, its table, the rows it left out and what the
// columns mean.
inline text_section site_section(std::string heading, const std::string& table, std::size_t hidden, const char* what,
                                 const char* legend) {
  text_section s;
  s.heading = std::move(heading);
  s.body = table + not_shown_note(hidden, what) + legend;
  return s;
}

// The call-site table: the top `top_n` sites by local span on span.
inline text_section call_sites_section(const report& rep, std::size_t top_n) {
  const std::uint64_t span = rep.span();
  std::size_t hidden = 0;
  const std::vector<std::size_t> shown = top_rows(
      rep.call_sites, top_n, [](const call_site_profile& c) { return c.local_on_span.span; }, hidden);
  const std::string table = fitted_site_columns([&](bool short_numbers, std::size_t label_width) {
    text_table t({"call site", "l.span", "%", "l.work", "t.work", "t.span", "t.par", "count", "r"});
    for (const std::size_t i : shown) {
      const call_site_profile& c = rep.call_sites[i];
      const site_measure& tcs = c.top_call_site_on_work;
      t.add({site_label(c.kind, c.name, c.function, true, label_width),
             signed_count_text(c.local_on_span.span, short_numbers), share_text(c.local_on_span.span, span),
             count_text(c.local_on_span.work, short_numbers), count_text(tcs.work, short_numbers),
             signed_count_text(tcs.span, short_numbers),
             ratio_text(tcs.span > 0 ? 1 : 0, tcs.parallelism(), short_numbers),
             count_text(c.local_on_work.count, short_numbers), c.recursive ? "*" : ""});
    }
    return t;
  });
  return site_section("Call sites (by local span on span, largest first; work and span in " + printable(rep.unit) + ")",
                      table, hidden, "call site",
                      "  l. = local, on span (% = share of the span); t. = top-call-site, on work;\n"
                      "  count = invocations; r: * = recursive (docs/model.md, \"Per-site profiles\")\n");
}

// The spawn-site table: the top `top_n` sites by critical span.
inline text_section spawn_sites_section(const report& rep, std::size_t top_n) {
  std::size_t hidden = 0;
  const std::vector<std::size_t> shown = top_rows(
      rep.spawn_sites, top_n, [](const spawn_site_profile& p) { return p.critical_span; }, hidden);
  const std::string table = fitted_site_columns([&](bool short_numbers, std::size_t label_width) {
    text_table t({"spawn site", "tasks", "work", "span", "par.", "crit.span", "crit.%"});
    for (const std::size_t i : shown) {
      const spawn_site_profile& p = rep.spawn_sites[i];
      t.add({site_label(p.kind, p.name, p.function, false, label_width), count_text(p.tasks, short_numbers),
             count_text(p.work, short_numbers), count_text(p.span, short_numbers),
             ratio_text(p.span, p.parallelism(), short_numbers), signed_count_text(p.critical_span, short_numbers),
             percent_text(p.critical_percent)});
    }
    return t;
  });
  return site_section("Spawn sites (by critical span, largest first; work and span in " + printable(rep.unit) + ")",
                      table, hidden, "spawn site",
                      "  work, span = of the top-call-site tasks; crit. = the tasks' own strands on\n"
                      "  the critical path (% = share of the span)\n");
}

// The call-site and spawn-site tables (report::sites_text, report::to_text),
// the last followed by the self-checks that fail.
inline std::vector<text_section> site_sections(const report& rep, std::size_t top_n) {
  std::vector<text_section> out;
  if (!rep.call_sites.empty()) out.push_back(call_sites_section(rep, top_n));
  if (!rep.spawn_sites.empty()) out.push_back(spawn_sites_section(rep, top_n));
  const std::vector<std::string> failed = profile_check_failures(rep);
  if (!failed.empty() && !out.empty()) {
    out.back().body += "  profile self-check failed:\n";
    for (const auto& f : failed) out.back().body += wrapped(f, "    ", "      ");
  }
  return out;
}

}  // namespace output
}  // namespace detail

#if FORKSCALE_DETAIL_DEFINES(writers)
FORKSCALE_INLINE std::string report::check_profile() const {
  std::string out;
  for (const auto& f : detail::output::profile_check_failures(*this))
    out += (out.empty() ? "profile self-check failed: " : "; ") + f;
  return out;
}

FORKSCALE_INLINE std::string report::sites_text(std::size_t top_n) const {
  const auto sections = detail::output::site_sections(*this, top_n);
  if (sections.empty()) return "No site profiles in this report.\n";
  std::string out;
  for (const auto& s : sections) out += (out.empty() ? "" : "\n") + s.heading + "\n" + s.body;
  return out;
}
#endif  // FORKSCALE_DETAIL_DEFINES

FORKSCALE_NAMESPACE_END
