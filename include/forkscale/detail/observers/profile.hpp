// detail/observers/profile.hpp: what each engine point does for the per-site
// profiles (docs/model.md, "Per-site profiles"). measurement_observers
// (list.hpp) calls these when the measurement profiles sites.
//
// A frame's path value for the on-span profile is (totals.span, task_id), its
// running sums `path.local_span` / `path.task_span`, and its chain of records:
// `path.chain` plus up to prof_node::capacity records held in the frame itself,
// pushed onto the chain only when the path is shared (a spawn) or handed on.
#pragma once
#include <algorithm>
#include <cstdint>

#include "../../config.hpp"
#include "../../report.hpp"
#include "../../site.hpp"
#include "../engine/frame.hpp"
#include "../engine/session.hpp"
#include "../macro_scope.hpp"
#include "../profile/chain.hpp"
#include "../profile/prof_records.hpp"
#include "../profile/sites.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

// ---- the frame's chain ----------------------------------------------------------

// Gives back the references to the frame's chain head taken in advance; call
// before the head changes.
inline void drop_credits(frame& f) noexcept {
  if (f.profile.chain_credits) {
    f.profile.path.chain->refs.fetch_sub(f.profile.chain_credits, std::memory_order_release);
    f.profile.chain_credits = 0;
  }
}

// Appends a finished invocation's on-span record to the frame's path. One of
// the same site and flags as the record before it on the path is summed into
// that one (a loop's calls): every use of a record is a sum per site and flag
// (site_sums::add), so the profile is the same, and the path holds one record
// where it would hold thousands.
inline void append_record(frame& f, const prof_record& r) {
  if (f.profile.record_count != 0 && merge_record(f.profile.records[f.profile.record_count - 1], r)) return;
  if (f.profile.record_count == prof_node::capacity) {
    drop_credits(f);
    push_records(f.profile.path.chain, f.profile.records, f.profile.record_count);
    f.profile.record_count = 0;
  }
  f.profile.records[f.profile.record_count++] = r;
}

// Makes the frame's path value shareable: its records go onto its chain.
inline prof_node* freeze_path(frame& f) {
  if (f.profile.record_count) {
    drop_credits(f);
    push_records(f.profile.path.chain, f.profile.records, f.profile.record_count);
    f.profile.record_count = 0;
  }
  return f.profile.path.chain;
}

// A reference to the frame's path for a child: one atomic add per 64 spawns.
// A chain past half the fold limit is folded here, by its owner, before it is
// shared: otherwise every child that adds a record or two to it at its end
// would fold the same shared prefix again (push_records), and a child whose
// path then loses its join throws that fold away — a fold per spawn where one
// per half-limit of records is enough.
inline prof_node* share_path(frame& f) {
  prof_node* p = freeze_path(f);
  if (!p) return nullptr;
  if (FORKSCALE_DETAIL_UNLIKELY(p->records_below > fold_limit() / 2)) {
    drop_credits(f);
    fold_chain(f.profile.path.chain);
    p = f.profile.path.chain;
  }
  if (FORKSCALE_DETAIL_UNLIKELY(f.profile.chain_credits == 0)) {
    p->refs.fetch_add(64, std::memory_order_relaxed);
    f.profile.chain_credits = 64;
  }
  --f.profile.chain_credits;
  return p;
}

// Takes the frame's path away from it (its end): the caller owns the reference.
inline prof_node* take_path(frame& f) {
  drop_credits(f);
  prof_node* p = freeze_path(f);
  f.profile.path.chain = nullptr;
  return p;
}

// The on-work half of a record: this thread's table, no lock.
inline void record_on_work(session* s, const prof_record& r) {
  thread_tables& t = tables_for(s);
  if (FORKSCALE_DETAIL_UNLIKELY(t.on_work.size() <= r.site))
    t.on_work.resize(std::max<std::size_t>(r.site + 1u, site_registry::instance().count()));
  t.on_work[r.site].add(r);
}

// ---- events -------------------------------------------------------------------

// Spawn: the child's task id, its site and the spawner's path profile. Returns
// whether the site was registered just now (site_step::registered).
inline bool profile_spawn(frame& f, spawn_token& tk, const site& where) {
  const site_step st = site_step_for(f.profile.context, where, site_kind::spawn);
  tk.profile.task_id = child_task_id(f.profile.task_id, ++f.profile.spawn_count);
  tk.profile.context = st.next;
  tk.profile.site_id = st.site;
  tk.profile.flags = static_cast<unsigned char>(st.flags | prof_task);
  tk.profile.on = true;
  tk.profile.path.local_span = f.profile.path.local_span;
  tk.profile.path.task_span = f.profile.path.task_span;
  tk.profile.path.chain = share_path(f);
  return st.registered;
}

// A child starts: its invocation opens with the spawner's path value.
inline void profile_task_start(frame& c, spawn_token& tk) noexcept {
  c.profile.task_id = tk.profile.task_id;
  c.profile.spawn_count = 0;
  c.profile.local_work = 0;
  c.profile.task_work = 0;
  c.profile.span_at_start = tk.span;
  c.profile.local_span_at_start = tk.profile.path.local_span;
  c.profile.task_span_at_start = tk.profile.path.task_span;
  c.profile.context = tk.profile.context;
  c.profile.task_site = tk.profile.site_id;
  c.profile.task_flags = tk.profile.flags;
  c.profile.record_count = 0;
  c.profile.chain_credits = 0;
  c.profile.path = tk.profile.path;
  tk.profile.path.chain = nullptr;
}

// The record of the task's own invocation, from its start to here.
inline prof_record task_record(const frame& c) noexcept {
  prof_record r{};
  r.site = c.profile.task_site;
  r.flags = c.profile.task_flags;
  r.work = c.totals.work;
  r.span = static_cast<std::int64_t>(c.totals.span - c.profile.span_at_start);
  r.local_work = c.profile.local_work;
  r.local_span = static_cast<std::int64_t>(c.profile.path.local_span - c.profile.local_span_at_start);
  r.task_work = c.profile.task_work;
  r.task_span = static_cast<std::int64_t>(c.profile.path.task_span - c.profile.task_span_at_start);
  return r;
}

// A task ends: its own invocation's record (on work now, on span with its path),
// and the path profile it reports with: its chain, and on top of it the
// records left in the frame (profile_task_pending), which are not pushed onto
// the chain.
inline path_prof profile_task_end(frame& c) {
  const prof_record r = task_record(c);
  c.profile.path.local_span = c.profile.local_span_at_start;
  c.profile.path.task_span = c.profile.task_span_at_start;
  record_on_work(c.sess, r);
  append_record(c, r);
  drop_credits(c);
  path_prof out = c.profile.path;
  out.task = c.profile.task_id;
  c.profile.path.chain = nullptr;
  return out;
}

// The records on top of the chain profile_task_end gave: the frame's, read by
// the report that follows it.
inline pending_records profile_task_pending(const frame& c) noexcept {
  return pending_records{c.profile.records, c.profile.record_count};
}

// A task ends while children it left unjoined still run: its invocation ends
// with the last of them. Its record is held back (join_set::defer) and the path
// value it reports with is its own, running sums as they are; the set those
// children report to finishes the record with the longest of their paths.
inline void finish_deferred_record(deferred_record& d, path_totals& t, path_prof& p) {
  prof_record r{};
  r.site = d.site;
  r.flags = d.flags;
  r.work = t.work;  // the task's own totals and every child it left, all reported here
  r.span = static_cast<std::int64_t>(t.span - d.span_at_start);
  r.local_work = d.local_work;
  r.local_span = static_cast<std::int64_t>(p.local_span - d.local_span_at_start);
  r.task_work = d.task_work;
  r.task_span = static_cast<std::int64_t>(p.task_span - d.task_span_at_start);
  record_on_work(d.sess, r);
  push_records(p.chain, &r, 1);
  p.local_span = d.local_span_at_start;
  p.task_span = d.task_span_at_start;
  p.task = d.task_id;
}

inline path_prof profile_task_end_deferred(frame& c, deferred_record*& d) {
  d = object_cache<deferred_record>::local().take();
  d->finish = &finish_deferred_record;
  d->sess = c.sess;
  d->site = c.profile.task_site;
  d->flags = c.profile.task_flags;
  d->task_id = c.profile.task_id;
  d->span_at_start = c.profile.span_at_start;
  d->local_work = c.profile.local_work;
  d->local_span_at_start = c.profile.local_span_at_start;
  d->task_work = c.profile.task_work;
  d->task_span_at_start = c.profile.task_span_at_start;
  path_prof out = c.profile.path;
  out.task = c.profile.task_id;
  out.chain = take_path(c);
  return out;
}

// The path profile at the running point of `f`, kept for the successors of a
// depend edge (a share of its chain). At a point the task goes on from, it is
// what a spawn hands a child; at the task's end (`task_end`), the value it will
// report: its own invocation's record on top (on span only: its work is filed
// once, when the task ends), its running sums back at its start.
inline path_prof profile_path_kept(frame& f, bool task_end) {
  path_prof p;
  p.task = f.profile.task_id;
  p.chain = share_path(f);
  if (!task_end) {
    p.local_span = f.profile.path.local_span;
    p.task_span = f.profile.path.task_span;
    return p;
  }
  const prof_record r = task_record(f);
  push_records(p.chain, &r, 1);
  p.local_span = f.profile.local_span_at_start;
  p.task_span = f.profile.task_span_at_start;
  return p;
}

// A task's predecessors (`depend`) have joined its path where it starts: its
// invocation starts after them, so that its span, like its work, covers only
// what it does and joins (their work is counted by whoever joins them).
inline void profile_restart_task(frame& c) noexcept {
  c.profile.span_at_start = c.totals.span;
  c.profile.local_span_at_start = c.profile.path.local_span;
  c.profile.task_span_at_start = c.profile.path.task_span;
}

// A call opens: its invocation starts counting local work and span.
// A call opens; returns whether its site was registered just now.
inline bool profile_call_open(frame& f, call_state& cs, const site& where) {
  const site_step st = site_step_for(f.profile.context, where, site_kind::call);
  cs.caller_context = f.profile.context;
  cs.caller_local_work = f.profile.local_work;
  cs.span_at_open = f.totals.span;
  cs.work_at_open = f.totals.work;
  cs.local_span_at_open = f.profile.path.local_span;
  cs.site_id = st.site;
  cs.flags = st.flags;
  f.profile.context = st.next;
  f.profile.local_work = 0;
  return st.registered;
}

// A call closes: its invocation's record.
inline void profile_call_close(frame& f, const call_state& cs) {
  prof_record r{};
  r.site = cs.site_id;
  r.flags = cs.flags;
  r.work = f.totals.work - cs.work_at_open;
  r.span = static_cast<std::int64_t>(f.totals.span - cs.span_at_open);
  r.local_work = f.profile.local_work;
  r.local_span = static_cast<std::int64_t>(f.profile.path.local_span - cs.local_span_at_open);
  f.profile.path.local_span = cs.local_span_at_open;
  f.profile.context = cs.caller_context;
  f.profile.local_work = cs.caller_local_work;
  record_on_work(f.sess, r);
  append_record(f, r);
}

// A join took `joined` (ending at joined_span; `pending` its records on top of
// its chain) while the task's own path ends at f.totals.span (before the
// join): when a child's path is the longer, the task's path becomes it, its
// records on top in the frame; otherwise the child's chain is dropped.
inline void profile_join(frame& f, const path_prof& joined, std::uint64_t joined_span, const prof_record* pending,
                         unsigned pending_count) noexcept {
  if (path_beats(joined_span, joined.task, f.totals.span, f.profile.task_id)) {
    drop_credits(f);
    release_prof(f.profile.path.chain);
    copy_records(f.profile.records, pending, pending_count);
    f.profile.record_count = pending_count;
    f.profile.path.local_span = joined.local_span;
    f.profile.path.task_span = joined.task_span;
    f.profile.path.chain = joined.chain;
  } else {
    release_prof(joined.chain);
  }
}

}  // namespace detail
FORKSCALE_NAMESPACE_END
