// detail/engine/tasks.hpp: the parts of the events that do not read the clock —
// a task's start and end, its children handed on to whoever joins it, task
// groups and join handles, and labeled regions.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "../../config.hpp"
#include "../../report.hpp"
#include "../../site.hpp"
#include "../macro_scope.hpp"
#include "frame.hpp"
#include "join_set.hpp"
#include "session.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

// ---- frames ---------------------------------------------------------------------

// Whether events share clock readings (frame::fuse): a child run at once starts
// at its spawn's reading, and a sync that waited for nothing starts the next
// strand at the reading that ended the last one. Under the wall clocks, whose
// readings every thread can compare; not while recording (each strand is kept
// with its own ends). The cost clock counts only charge(), which no event's
// own code calls, so sharing changes nothing there: tests switch it on
// (fuse_readings_under_cost_clock, hooks.hpp) to check exactly that.
// thread_cpu's readings are the thread's own (the TSC less what that thread
// spent off its CPU), so they are shared only on one thread: a child run at
// once; a join compares its children's end readings, taken on other threads
// perhaps, and reads the clock (joins_fuse).
inline bool readings_fuse(clock_kind k, recording_mode r) noexcept {
  if (r != recording_mode::off) return false;
  return k == clock_kind::tsc || k == clock_kind::steady || k == clock_kind::arm_counter ||
         k == clock_kind::thread_cpu || (k == clock_kind::cost && fuse_readings_under_cost_clock);
}
inline bool joins_fuse(clock_kind k, recording_mode r) noexcept {
  return readings_fuse(k, r) && k != clock_kind::thread_cpu;
}

// Whether call sites take the engine's slow path in this session.
inline unsigned char call_events_of(const session& s) noexcept {
  return static_cast<unsigned char>((s.what_if_calls ? 1 : 0) | (s.recording != recording_mode::off ? 2 : 0));
}

// What every frame takes from its session when it starts running: the hot
// path's copies of the session's constants.
inline void init_frame(frame& f, session* s, frame* outer, const site& where) noexcept {
  f.comp = &s->compensation;
  f.comp_open = s->compensation.open[open_child];
  f.burden = s->burden.load(std::memory_order_relaxed);
  f.backends = s->backends_seen.load(std::memory_order_relaxed);
  f.kind = s->kind;
  f.state = frame::run_state::running;
  f.open_guards = 0;
  f.outer = outer;
  f.sess = s;
  f.sync_block = nullptr;
  f.where = where;
  f.call_events = call_events_of(*s);
  f.fuse = s->fuse_readings;
  f.fuse_join = s->fuse_joins;
}

// The root frame of a measurement.
template <class Observers>
void init_root(frame& root, session* s, const site& where) noexcept {
  root.totals = path_totals{};
  init_frame(root, s, nullptr, where);
  root.report_to = nullptr;
  root.region = &s->root;
  Observers::root_started(root, *s);
}

// A spawned task's frame, from its spawn token (consumed).
template <class Observers>
void start_task(frame& c, session* s, frame* outer, spawn_token& tk, const site& where) noexcept {
  c.totals = path_totals{};
  c.totals.span = tk.span;
  c.totals.burdened_span = tk.burdened_span;
  c.totals.raw_span = tk.raw_span;
  c.totals.what_if = tk.what_if;
  tk.what_if = nullptr;
  c.totals.last_strand = tk.last_strand;
  init_frame(c, s, outer, where);
  c.report_to = tk.target;
  c.region = tk.region;
  Observers::task_started(c, *s, tk);
  c.call_events = call_events_of(*s);
  c.fuse = s->fuse_readings;
  c.fuse_join = s->fuse_joins;
  tk.target = nullptr;
}

// A spawn through the adapter of a library `f` has not seen (`from`, a
// backend_bit): the session learns it unless it knew it already, the first
// library's burden becomes the session's when the burden follows the backend
// (options.backend automatic), and the frame takes both. Once per library per
// session, or per frame that started before the session learnt it.
FORKSCALE_DETAIL_NOINLINE inline void note_backend(frame& f, unsigned char from) noexcept {
  session* s = f.sess;
  unsigned char seen = s->backends_seen.load(std::memory_order_relaxed);
  if ((seen & from) == 0) {
    seen = s->backends_seen.fetch_or(from, std::memory_order_relaxed);
    if (seen == 0) {
      s->first_backend.store(from, std::memory_order_relaxed);
      if (s->burden_follows_backend)
        s->burden.store(s->backend_burden[static_cast<unsigned>(backend_of_bit(from)) & 3u].ticks,
                        std::memory_order_relaxed);
    }
    seen = static_cast<unsigned char>(seen | from);
  }
  f.backends = static_cast<unsigned char>(f.backends | seen);
  f.burden = s->burden.load(std::memory_order_relaxed);
}

// ---- children handed on -----------------------------------------------------------

// At the end of a measurement's root (a spawned task ends through
// merge_finished_children and end_with_children_running, below): children it
// never joined are waited for by whoever joins it; with no one to (the root),
// those still running are misuse. If they are all done already their totals are
// simply merged. `out` is the path profile at its end; children merged here
// compete with it for the path.
template <class Observers>
void settle_sync_block(frame& f, path_prof* out) noexcept {
  join_set* j = f.sync_block;
  if (!j) return;
  f.sync_block = nullptr;
  join_contents c;
  if (join_set::take_if_complete(j, c)) {
    const path_prof loser = out ? keep_longer(*out, f.totals.span, c.prof, c.totals.span) : c.prof;
    f.totals.join(c.totals);
    release_prof(loser.chain);
    Observers::join_done(f, c, nullptr);
    return;
  }
  if (f.report_to) {
    f.report_to->count_shared_child();  // the forwarded set is one more child of report_to
    j->release(f.report_to);
  } else {
    misuse(f.sess, f.where,
           "the measurement ended while " + std::to_string(c.running) +
               " spawned task(s) had not finished; they are not counted");
    j->release(nullptr);
  }
}

// At the end of a spawned task: children it never joined (tasks that outlive
// their spawner) are waited for by whoever joins the task, and they belong to
// its invocation — its work and span in the site profiles cover them, whichever
// join takes them (docs/model.md, "Per-site profiles"). Those that have finished
// merge into the task now, before its record is made; returns the set of those
// still running, or null.
template <class Observers>
join_set* merge_finished_children(frame& f) noexcept {
  join_set* j = f.sync_block;
  f.sync_block = nullptr;
  if (j->free_if_quiet()) return nullptr;  // every child joined already: nothing to merge
  join_contents c;
  if (!join_set::take_if_complete(j, c)) return j;
  Observers::join_taken(f, c);
  f.totals.join(c.totals);
  Observers::join_done(f, c, nullptr);
  return nullptr;
}

// The task ends while children it left in `left` still run: its own end
// reports into `left`, as one more child, with its invocation's record held
// back; the set goes on to the task's joiner, and the last child to finish
// completes the record there (join_set::retire).
template <class Observers>
void end_with_children_running(frame& f, join_set* left, const join_source& from) noexcept {
  if (FORKSCALE_DETAIL_UNLIKELY(f.report_to == nullptr)) {  // (a spawned task always has one)
    f.sync_block = left;
    path_prof out = Observers::task_ended(f);
    settle_sync_block<Observers>(f, Observers::carries_profile(f) ? &out : nullptr);
    join_set::report(nullptr, f.totals, out, from);
    return;
  }
  deferred_record* d = nullptr;
  const path_prof out = Observers::task_ended_deferred(f, d);
  if (d) left->defer(d);
  left->count_own_child();
  join_set::report(left, f.totals, out, from);
  left->release(f.report_to);
}

// A call scope ends: the children spawned inside it that no join inside it
// waited for join the enclosing scope's sync block — finished ones with their
// totals, running ones as one forwarded set.
template <class Observers>
void hand_on_call_block(frame& f, join_set* inner) noexcept {
  if (inner->free_if_quiet()) return;  // every child joined inside the call
  join_contents c;
  if (join_set::take_if_complete(inner, c)) {
    if (c.finished == 0) return;
    if (!f.sync_block) f.sync_block = join_set::make(f.sess, Observers::join_record(f));
    f.sync_block->absorb(c);
    return;
  }
  if (!f.sync_block) f.sync_block = join_set::make(f.sess, Observers::join_record(f));
  f.sync_block->count_own_child();  // the forwarded set counts as one child of the outer block
  inner->release(f.sync_block);
}

// Children that report after their join are merged by the task's next join (or
// its end); the numbers of this join miss them, which the diagnostic says.
FORKSCALE_DETAIL_NOINLINE inline void incomplete_join(frame* f, std::int64_t running, const site& where) noexcept {
  misuse(f->sess, where,
         "sync_point ended while " + std::to_string(running) +
             " spawned task(s) had not reported back (never ran, still running, or not waited for by this join); "
             "this join does not include them");
}

// A spawned task destroyed without ever running (a cancelled task group, a
// dropped callable): it reports nothing, but it must not keep its join waiting.
FORKSCALE_DETAIL_NOINLINE inline void drop_unrun(spawn_token& tk, const site& where = site{}) noexcept {
  join_set* j = tk.target;
  tk.target = nullptr;
  release_spawn_profile(tk.profile);
  what_if_release(tk.what_if);
  tk.what_if = nullptr;
  misuse(j->owner_session(), where,
         "a task spawned here was destroyed without running (cancelled?); it counts as empty");
  j->drop_child();
}

// A token destroyed unused (spawn_token's destructor, through task_hooks).
inline void drop_token(spawn_token& tk) noexcept {
  if (FORKSCALE_DETAIL_UNLIKELY(tk.target != nullptr)) drop_unrun(tk);
  if (FORKSCALE_DETAIL_UNLIKELY(tk.what_if != nullptr)) what_if_release(tk.what_if);
  tk.what_if = nullptr;
}

// ---- task groups and join handles -----------------------------------------------

// Bound sets are listed on the binding thread's table, and counted per thread:
// binds minus releases, each on the thread that made it (thread_tables).
// Binding lists the set and counts it on this thread's table.
inline void list_bound(session* s, join_set* j) {
  thread_tables& t = tables_for(s);
  t.bound_net.store(t.bound_net.load(std::memory_order_relaxed) + 1, std::memory_order_release);
  t.bound_lock.lock();
  j->bound_on = &t;
  j->bound_prev = nullptr;
  j->bound_next = t.bound_head;
  if (t.bound_head) t.bound_head->bound_prev = j;
  t.bound_head = j;
  t.bound_lock.unlock();
}
inline void unlist_bound(join_set* j) noexcept {
  thread_tables* t = j->bound_on;
  if (!t) return;
  t->bound_lock.lock();
  if (j->bound_prev) {
    j->bound_prev->bound_next = j->bound_next;
  } else {
    t->bound_head = j->bound_next;
  }
  if (j->bound_next) j->bound_next->bound_prev = j->bound_prev;
  t->bound_lock.unlock();
  j->bound_on = nullptr;
}
// A release counts -1 on the releasing thread's table: a release's last use of
// the session, since a session with nothing bound may be freed.
inline void count_released(session* s) {
  std::atomic<std::int64_t>& n = tables_for(s).bound_net;
  n.store(n.load(std::memory_order_relaxed) - 1, std::memory_order_release);
}
// The sets still bound (the sum over the threads).
inline std::int64_t bound_count(session& s) {
  std::lock_guard<std::mutex> g(s.m);
  std::int64_t n = 0;
  for (const auto& t : s.tables) n += t->bound_net.load(std::memory_order_acquire);
  return n;
}

// A task group's join set, created by the first spawn made into it inside a
// measurement (`slot` is the group's; `where` records the site of that spawn).
inline join_set* group_join_set(std::atomic<join_set*>& slot, site& group_site, session* s, const site& where) {
  join_set* j = slot.load(std::memory_order_acquire);
  if (FORKSCALE_DETAIL_LIKELY(j != nullptr)) return j;
  join_set* fresh = join_set::make(s, s->rec.get());
  if (slot.compare_exchange_strong(j, fresh, std::memory_order_acq_rel)) {
    group_site = where;
    list_bound(s, fresh);
    return fresh;
  }
  join_set::destroy(fresh);
  return j;
}

// A task group goes away: tasks it still waits for are misuse.
inline void close_group(join_set* j, const site& where) noexcept {
  session* s = j->owner_session();
  unlist_bound(j);
  const join_contents c = j->release(nullptr);
  if (c.running != 0)
    misuse(s, where, "task_group destroyed while " + std::to_string(c.running) + " of its tasks had not finished");
  else if (c.finished != 0)
    misuse(s, where,
           "task_group destroyed with " + std::to_string(c.finished) + " finished task(s) that no sync_point joined");
  count_released(s);
}

// A join handle lets go of its set: after its join (`why` null), or before it,
// which is misuse when the task was spawned (`why` says how it happened).
inline void release_handle(join_set* j, const site& where, const char* why) noexcept {
  session* s = j->owner_session();
  unlist_bound(j);
  const join_contents c = j->release(nullptr);
  if (why && (c.running != 0 || c.finished != 0)) misuse(s, where, why);
  count_released(s);
}

// A join handle's set for its next task.
inline join_set* bind_handle(session* s) {
  join_set* j = join_set::make(s, s->rec.get());
  list_bound(s, j);
  return j;
}

// The table the guards reach these through (state.hpp).
inline constexpr task_hooks the_task_hooks{&drop_token,  &drop_unrun,     &group_join_set,
                                           &close_group, &release_handle, &bind_handle};
inline void install_task_hooks() noexcept { installed_task_hooks.store(&the_task_hooks, std::memory_order_release); }

// Tasks spawned into task groups or join handles that no sync_point inside the
// measurement joined (still running, or finished and never waited for).
inline std::int64_t unjoined_in_bound_sets(session& s) {
  std::lock_guard<std::mutex> g(s.m);
  std::int64_t n = 0;
  for (const auto& t : s.tables) {
    t->bound_lock.lock();
    for (join_set* j = t->bound_head; j; j = j->bound_next) {
      const join_contents c = j->tally();
      n += c.running + static_cast<std::int64_t>(c.finished);
    }
    t->bound_lock.unlock();
  }
  return n;
}

// ---- labeled regions --------------------------------------------------------------

inline region_node* intern_region(session* s, region_node* parent, const std::string& label) {
  std::lock_guard<std::mutex> g(s->m);
  for (auto& c : parent->children)
    if (c->label == label) return c.get();
  auto node = std::make_unique<region_node>();
  node->label = label;
  node->path = parent->path + "/" + escape_region_label(label);
  node->parent = parent;
  node->depth = parent->depth + 1;
  parent->children.push_back(std::move(node));
  return parent->children.back().get();
}

inline void record_region(session* s, region_node* node, const path_totals& d) {
  std::lock_guard<std::mutex> g(s->m);
  ++node->instances;
  node->sum.add(d);
}

}  // namespace detail
FORKSCALE_NAMESPACE_END
