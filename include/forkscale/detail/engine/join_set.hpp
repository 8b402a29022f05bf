// detail/engine/join_set.hpp: where children report.
//
// A join set is what one join waits for: the implicit sync block of a task
// (Cilk's sync), a task_group, or the single child behind a join_handle.
// Children fold their path values in as they finish; the join takes the result.
// A set whose owner lets go without joining hands everything on to `forward`,
// the set its owner's own totals go to (tasks that outlive their spawner).
//
// Counting without an atomic on the spawn path: `outstanding_` starts at
// owner_ref (the owner's reference) and each finishing child subtracts one.
// Spawns made by the owning task are counted in `unpublished_`, which only the
// owner touches; a join is complete when outstanding_ + unpublished_ ==
// owner_ref. When the owner lets go it publishes its count and drops owner_ref;
// whoever then brings `outstanding_` to zero is the last user and hands the
// totals on. Every other field is guarded by the set's own lock.
//
// A join that finds nothing (no child spawned into the set since the last one,
// none reported) takes no lock: `outstanding_` and `finished_` are written
// under the lock but read by the owner without it (take's quiet path).
#pragma once
#include <atomic>
#include <cstdint>

#include "../../config.hpp"
#include "../macro_scope.hpp"
#include "../profile/chain.hpp"
#include "../record/buffer.hpp"
#include "../util/pool.hpp"
#include "../util/spinlock.hpp"
#include "../what_if/offsets.hpp"
#include "path_value.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

struct session;
struct thread_tables;

// A task's own invocation record (site profiles), held back while children the
// task left unjoined still run: its invocation ends with the last of them
// (docs/model.md, "Per-site profiles"). The set those children report to keeps
// it, and the last report finishes it (`finish`, defined with the profiles in
// observers/profile.hpp) before the set's path value goes on.
struct deferred_record {
  void (*finish)(deferred_record&, path_totals&, path_prof&) = nullptr;
  session* sess = nullptr;
  std::uint32_t site = 0;
  unsigned char flags = 0;
  std::uint64_t task_id = 0;
  std::uint64_t span_at_start = 0;
  std::uint64_t local_work = 0, local_span_at_start = 0;
  std::uint64_t task_work = 0, task_span_at_start = 0;
  deferred_record* next_free = nullptr;  // pool link
};

// What a join takes out of a set.
struct join_contents {
  path_totals totals;          // owns totals.what_if
  path_prof prof;              // the winning path's profile; owns prof.chain
  std::int64_t running = 0;    // children spawned and not yet reported
  std::uint64_t finished = 0;  // children folded in since the last join
  std::uint64_t uid = 0;       // recording: the set and the round taken
  std::uint32_t round = 0;
  // Nothing was spawned into the set since the last join and nothing reported:
  // everything above is empty (join_set::take's quiet path).
  bool quiet = false;
  // The latest clock reading at which a child folded in since the last join
  // ended (unknown_end when one is not known): a join that begins after it
  // does not wait (engine::end_sync).
  std::uint64_t last_end = 0;
  // The winning path's records on top of prof.chain, copied out of the set
  // under its lock.
  unsigned pending_count = 0;
  prof_record pending[prof_records_per_node];
};

inline constexpr std::uint64_t unknown_end = ~std::uint64_t(0);

// A count written only under a join set's lock, which its owner may also read
// without the lock (join_set::take's quiet path).
template <class T>
class guarded_count {
 public:
  explicit guarded_count(T v) noexcept : v_(v) {}
  // Under the lock.
  T get() const noexcept { return v_.load(std::memory_order_relaxed); }
  void set(T v) noexcept { v_.store(v, std::memory_order_release); }
  // Without it.
  T peek() const noexcept { return v_.load(std::memory_order_acquire); }
  // Under the lock: adds `d`, returns the new count.
  T add(T d) noexcept {
    const T v = get() + d;
    set(v);
    return v;
  }

 private:
  std::atomic<T> v_;
};

// Recording: what reports to a join — a task's last strand and the finished
// children it merged at its end, or a join handed on.
struct join_source {
  std::uint64_t strand = 0;
  std::uint64_t uid = 0;
  std::uint32_t round = 0;
};

class join_set {
 public:
  static constexpr std::int64_t owner_ref = std::int64_t(1) << 40;

  static join_set* make(session* s, record_state* rec = nullptr) {
    join_set* j = object_cache<join_set>::local().take();
    j->rec_ = rec;
    j->round_ = 0;
    if (FORKSCALE_DETAIL_UNLIKELY(rec != nullptr)) {
      record_buffer& b = rec->buffer();
      j->uid_ = (std::uint64_t(b.index) + 1) << record_id_shift | ++b.next_uid;
    }
    j->outstanding_.set(owner_ref);
    j->acc_end_ = 0;
    j->acc_ = path_totals{};
    j->acc_prof_ = path_prof{};
    j->acc_pending_count_ = 0;
    j->finished_.set(0);
    j->unpublished_ = 0;
    j->forward_ = nullptr;
    j->session_ = s;
    j->deferred_ = nullptr;
    return j;
  }
  // Frees a set nobody refers to any more.
  static void destroy(join_set* j) noexcept {
    if (FORKSCALE_DETAIL_UNLIKELY(j->deferred_ != nullptr)) object_cache<deferred_record>::local().put(j->deferred_);
    j->deferred_ = nullptr;
    what_if_release(j->acc_.what_if);
    j->acc_.what_if = nullptr;
    release_prof(j->acc_prof_.chain);
    j->acc_prof_.chain = nullptr;
    object_cache<join_set>::local().put(j);
  }

  session* owner_session() const noexcept { return session_; }

  // The owner's record, finished by the set's last report (owner only, before
  // release: the release's lock publishes it to whoever reports last).
  void defer(deferred_record* d) noexcept { deferred_ = d; }

  // One more child, spawned by the owning task: no lock, no atomic.
  void count_own_child() noexcept { ++unpublished_; }
  // One more child, spawned from any other task (task groups, forwarded sets).
  void count_shared_child() noexcept {
    lock_.lock();
    outstanding_.add(1);
    lock_.unlock();
  }

  // Children spawned and not yet reported, and children reported since the last
  // join. The owner's own count is exact only on the owner's thread.
  join_contents tally() noexcept {
    join_contents c;
    lock_.lock();
    c.running = running();
    c.finished = finished_.get();
    lock_.unlock();
    return c;
  }

  // A finished child (or a forwarded set) reports to `j`: its path value folds in
  // and its reference drops. The last user of a set whose owner has let go hands
  // the result on, and so on up the chain of forwards. `end` is the clock
  // reading at which the child ended, when it is known.
  // `pending`: the records `p` has on top of its chain, held by the caller
  // (a task's end: its frame's), copied here only if `p` wins.
  static void report(join_set* j, path_totals t, path_prof p, join_source from = {}, std::uint64_t end = unknown_end,
                     pending_records pending = {}) noexcept {
    while (j) {
      j->lock_.lock();
      if (FORKSCALE_DETAIL_UNLIKELY(j->rec_ != nullptr)) j->record_source(from);
      const path_prof loser = j->keep_longer_path(p, t.span, pending);
      j->acc_.join(t);
      if (end > j->acc_end_) j->acc_end_ = end;
      j->finished_.add(1);
      const bool last = j->outstanding_.add(-1) == 0;
      j->lock_.unlock();
      release_prof(loser.chain);
      if (!last) return;
      from = join_source{0, j->uid_, j->round_};
      end = unknown_end;  // a set handed on: when its children ended is not kept
      join_set* next = retire(j, t, p);
      pending = pending_records{};  // retire pushed the set's onto p.chain
      j = next;
    }
    release_prof(p.chain);
    what_if_release(t.what_if);
  }

  // The owner lets go without joining. Children still running will report to
  // `forward` (which must already count this set as one of its children); with
  // no forward, what they report is dropped. Returns the tally just before.
  join_contents release(join_set* forward) noexcept {
    join_contents c;
    lock_.lock();
    c.running = running();
    c.finished = finished_.get();
    forward_ = forward;
    const bool last = outstanding_.add(static_cast<std::int64_t>(unpublished_) - owner_ref) == 0;
    unpublished_ = 0;
    lock_.unlock();
    if (last) pass_on(this);
    return c;
  }

  // A spawned task that never ran: its reference drops with nothing folded in.
  void drop_child() noexcept {
    lock_.lock();
    const bool last = outstanding_.add(-1) == 0;
    lock_.unlock();
    if (last) pass_on(this);
  }

  // Owner only: frees the set when take() would find it quiet (nothing spawned
  // into it since its last join, nothing reported) and it holds no deferred
  // record — without the lock: no other task refers to it then (a running
  // child keeps `outstanding_` or `unpublished_` off the quiet values).
  // Returns whether it did.
  bool free_if_quiet() noexcept {
    if (unpublished_ != 0 || rec_ != nullptr || deferred_ != nullptr || outstanding_.peek() != owner_ref ||
        finished_.peek() != 0)
      return false;
    object_cache<join_set>::local().put(this);
    return true;
  }

  // The join: takes everything folded in so far. When nothing is outstanding the
  // set is ready for its next round (a task's sync block is reused).
  FORKSCALE_DETAIL_ALWAYS_INLINE join_contents take() noexcept {
    // The quiet path (owner only; not while recording, whose edges name rounds
    // under the lock): nothing spawned by the owner since the last join, and
    // `outstanding_` back at the owner's reference with no report since — read
    // in that order, so that a child counted and reported in between shows in
    // `finished_`. A child counted elsewhere after the reading joins next time,
    // as if it had been counted after this join's lock.
    if (unpublished_ == 0 && rec_ == nullptr && outstanding_.peek() == owner_ref && finished_.peek() == 0) {
      join_contents c;
      c.uid = uid_;
      c.round = round_++;
      c.quiet = true;
      return c;
    }
    return take_locked();
  }

 private:
  FORKSCALE_DETAIL_ALWAYS_INLINE join_contents take_locked() noexcept {
    lock_.lock();
    // (Member by member: braces would zero `pending` first.)
    join_contents c;
    c.totals = acc_;
    c.prof = acc_prof_;
    c.running = running();
    c.finished = finished_.get();
    c.uid = uid_;
    c.round = round_++;
    c.last_end = acc_end_;
    c.pending_count = acc_pending_count_;
    copy_records(c.pending, acc_pending_, acc_pending_count_);
    acc_end_ = 0;
    acc_ = path_totals{};
    acc_prof_ = path_prof{};
    acc_pending_count_ = 0;
    finished_.set(0);
    if (FORKSCALE_DETAIL_LIKELY(c.running == 0)) {
      outstanding_.set(owner_ref);
      unpublished_ = 0;
    }
    lock_.unlock();
    return c;
  }

 public:
  // Takes everything out and frees the set when nothing is outstanding; else
  // leaves it alone and says how many are.
  static bool take_if_complete(join_set* j, join_contents& out) noexcept {
    j->lock_.lock();
    out.running = j->running();
    out.finished = j->finished_.get();
    if (out.running != 0) {
      j->lock_.unlock();
      return false;
    }
    out.totals = j->acc_;
    out.prof = j->acc_prof_;
    out.uid = j->uid_;
    out.round = j->round_;
    out.last_end = j->acc_end_;
    j->acc_.what_if = nullptr;
    j->acc_prof_.chain = nullptr;
    j->lock_.unlock();
    j->push_pending(out.prof);  // nobody else refers to the set now
    destroy(j);
    return true;
  }

  // Merges what a completed set held, as if its children had reported here.
  void absorb(join_contents& c) noexcept {
    lock_.lock();
    if (FORKSCALE_DETAIL_UNLIKELY(rec_ != nullptr)) record_source(join_source{0, c.uid, c.round});
    const path_prof loser = keep_longer_path(c.prof, c.totals.span, pending_records{});
    acc_.join(c.totals);
    if (c.last_end > acc_end_) acc_end_ = c.last_end;
    finished_.add(c.finished);
    lock_.unlock();
    release_prof(loser.chain);
    c.prof.chain = nullptr;
  }

  join_set* next_free = nullptr;  // pool link
  // A task group's or join handle's set is on the list of the thread that bound
  // it (thread_tables, engine/tasks.hpp) until it is released.
  join_set* bound_prev = nullptr;
  join_set* bound_next = nullptr;
  thread_tables* bound_on = nullptr;

 private:
  std::int64_t running() const noexcept {
    return outstanding_.get() + static_cast<std::int64_t>(unpublished_) - owner_ref;
  }
  // The last user of a set: its totals go to the set's forward, and it is freed.
  // Returns the forward; `t` and `p` receive what it held.
  // A deferred record is finished on the way: `t` and `p` are then the path
  // value at the end of its task's invocation.
  static join_set* retire(join_set* j, path_totals& t, path_prof& p) noexcept {
    join_set* next = j->forward_;
    t = j->acc_;
    p = j->acc_prof_;
    j->push_pending(p);
    j->acc_.what_if = nullptr;
    j->acc_prof_.chain = nullptr;
    if (FORKSCALE_DETAIL_UNLIKELY(j->deferred_ != nullptr)) j->deferred_->finish(*j->deferred_, t, p);
    destroy(j);
    return next;
  }
  static void pass_on(join_set* j) noexcept {
    path_totals t;
    path_prof p;
    const join_source from{0, j->uid_, j->round_};
    join_set* next = retire(j, t, p);
    report(next, t, p, from);
  }

  // Under the lock: the set's path becomes the longer of itself and `p` (ending
  // at `span`; ties by task id, keep_longer), with the records `p` has on top
  // of its chain (`pending`) copied here when it wins. Returns the loser, whose
  // chain reference the caller drops (outside the lock).
  path_prof keep_longer_path(const path_prof& p, std::uint64_t span, pending_records pending) noexcept {
    if (!path_beats(span, p.task, acc_.span, acc_prof_.task)) return p;
    const path_prof loser = acc_prof_;
    acc_prof_ = p;
    acc_pending_count_ = pending.count;
    copy_records(acc_pending_, pending.at, pending.count);
    return loser;
  }
  // The set's path value `p` leaves the set: the records on top of its chain
  // go onto it.
  void push_pending(path_prof& p) noexcept {
    if (FORKSCALE_DETAIL_LIKELY(acc_pending_count_ == 0)) return;
    push_records(p.chain, acc_pending_, acc_pending_count_);
    acc_pending_count_ = 0;
  }

  // Recording, under the lock: `from` reports to this set's current round. The
  // edge is appended before the lock is let go, so the join that takes the
  // round finds it.
  FORKSCALE_DETAIL_NOINLINE void record_source(const join_source& from) noexcept {
    if (from.strand == 0 && from.uid == 0) return;
    raw_edge* e = rec_->buffer().edges.next(*rec_);
    if (!e) return;
    *e = raw_edge{uid_, from.strand, from.uid, round_, from.round};
  }

  spinlock lock_;
  guarded_count<std::int64_t> outstanding_{owner_ref};
  std::uint64_t acc_end_ = 0;  // join_contents::last_end
  path_totals acc_;
  path_prof acc_prof_;  // its records on top of acc_prof_.chain are acc_pending_
  unsigned acc_pending_count_ = 0;
  prof_record acc_pending_[prof_records_per_node];
  guarded_count<std::uint64_t> finished_{0};
  std::uint64_t unpublished_ = 0;  // owner only
  join_set* forward_ = nullptr;
  session* session_ = nullptr;
  record_state* rec_ = nullptr;          // recording: this measurement's record, else null
  deferred_record* deferred_ = nullptr;  // the owner's record, when it ended before its children
  std::uint64_t uid_ = 0;
  std::uint32_t round_ = 0;  // joins taken so far
};

}  // namespace detail
FORKSCALE_NAMESPACE_END
