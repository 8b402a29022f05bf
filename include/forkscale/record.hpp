// record.hpp: a recorded run — the strand graph of one measurement, kept when
// options::record is on (or FORKSCALE_RECORD=1). The totals never depend on it:
// a record that hit options::record_limit loses views, not numbers.
//
// The graph (docs/record.md): strands are the nodes that cost something; joins
// are zero-cost nodes where the children a sync_point waits for meet. A strand
// follows `prev` (the strand before it in its task, or, for a task's first
// strand, the spawner's strand that ended at the spawn) and, after a sync, its
// `join`. A join follows the last strands of the tasks that reported to it and
// the joins handed on to it (tasks that outlived the scope that spawned them).
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "config.hpp"

FORKSCALE_NAMESPACE_BEGIN

// A place in the user's code, as the record names it.
struct record_site {
  std::string name;  // the tag, or file:line (file without its directory)
  std::string file;
  unsigned line = 0;
  std::string function;
  std::string tag;  // empty when the site has none
};

// One node of the call-path tree: the call sites and spawn sites open around a
// strand, outermost first (the stacks of flame graphs). Node 0 is the
// measurement itself. Recursion is folded: entering a site already on the path
// takes the path back to that site, so recursive code has few paths.
struct record_frame {
  enum class kind_type : unsigned char { root, call, spawn };
  std::uint32_t parent = 0;  // node 0 is its own parent
  kind_type kind = kind_type::root;
  std::uint32_t site = 0;  // index into execution_record::sites (unused for the root)
  std::uint32_t depth = 0;
};

// One strand: a stretch of one task between two fork-join events, run by one
// thread. Times are wall-clock nanoseconds since the measurement started, on
// every clock (under the cost clock and thread_cpu the record reads the wall
// clock as well); costs are in the report's unit.
struct record_strand {
  std::uint32_t thread = 0;  // index into execution_record::threads
  std::uint32_t frame = 0;   // index into execution_record::frames: where it ran
  std::uint32_t task = 0;    // index into execution_record::tasks
  bool after_spawn = false;  // continues its task after a spawn: the continuation
                             // edge, which carries Cilkview's burden
  bool critical = false;     // on the critical path
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
  std::uint64_t work = 0;  // what it adds to the work
  std::uint64_t span = 0;  // what it adds to every path through it (the work, but
                           // for call sites the advisor assumes faster)
  std::int64_t prev = -1;  // the strand before it (see above); -1: the first strand
  std::int64_t join = -1;  // the join it starts after (index into joins); -1: none
  // The strand that ends the longest path to this one's start (-1: none): the
  // edge that decided the join's maximum. Following it from the last strand
  // gives the critical path.
  std::int64_t critical_pred = -1;
  // The what-if regions it ran inside: bit r set for execution_record::what_if_regions[r].
  std::uint64_t what_if = 0;
};

// A join: a sync_point's wait (or a task's end that merged its finished
// children, or children handed on to an enclosing scope).
struct record_join {
  std::vector<std::uint32_t> strands;  // last strands of the tasks that reported here
  std::vector<std::uint32_t> joins;    // joins handed on to this one
  std::int64_t site = -1;              // the sync_point's site (index into sites); -1: none
  std::uint32_t thread = 0;            // the thread that waited
  std::uint64_t wait_start_ns = 0;     // when its task stopped to wait
  std::uint64_t wait_end_ns = 0;       // when the wait returned
};

// A task: the measurement's own (task 0) or one spawned task.
struct record_task {
  std::int64_t parent = -1;  // the spawning task; -1 for task 0
  std::uint32_t frame = 0;   // its spawn site's call path (0 for task 0)
  std::uint32_t first = 0;   // its first strand
  std::uint32_t last = 0;    // its last strand
};

// A what-if region of the measurement (report::what_if names it `name`): a
// what_if_region guard's site, or a call site named in options.what_if.
struct record_what_if_region {
  std::string name;
  bool call_site = false;  // a named call site (what_if_source::call_site), else a guard's region
  std::string file;
  unsigned line = 0;
  std::string function;
  std::string tag;
};

// One thread that ran strands of the measurement.
struct record_thread {
  std::uint64_t os_id = 0;    // the operating system's id of the thread (Linux: the tid)
  std::uint64_t busy_ns = 0;  // wall time inside strands
};

// One instance of a labeled region, on the thread that opened it.
struct record_region {
  std::string path;  // as in report::regions
  std::uint32_t thread = 0;
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
};

// One hold of a lock taken through forkscale (fs::mutex, fs::lock_guard,
// fs::unique_lock; docs/blame.md) by a thread running a task of the
// measurement. A strand never ends at a lock: the hold lies inside the thread's
// strands from `strand` (open when the acquisition began) to `last_strand`
// (open when it was released), in the thread's time order.
struct record_lock {
  std::uint32_t thread = 0;  // index into execution_record::threads
  std::uint32_t lock = 0;    // index into sites: the lock's name (its label, or where it was made)
  std::uint32_t site = 0;    // index into sites: where it was acquired
  // A contended acquisition: where the holder had acquired it when the wait
  // began (index into sites); -1: no holder seen (or not contended).
  std::int64_t holder_site = -1;
  std::int64_t strand = -1;         // the strand open when the acquisition began; -1: none (see docs/blame.md)
  std::int64_t last_strand = -1;    // the strand open when it was released; -1: none
  std::uint64_t wait_start_ns = 0;  // the acquisition began
  std::uint64_t acquired_ns = 0;    // ... and ended: the hold starts
  std::uint64_t released_ns = 0;
  bool contended = false;  // the lock was not free at once
};

struct execution_record {
  // False when recording stopped at options::record_limit (or tasks were still
  // running when the measurement ended): the views are then partial; the
  // report's numbers are whole either way.
  bool complete = true;
  std::uint64_t limit_bytes = 0;  // options::record_limit
  // options::trace_limit: above this many strands the trace folds the shorter
  // ones (docs/record.md, "The bound"); 0: never.
  std::uint64_t trace_limit = 1000000;
  std::uint64_t bytes = 0;  // what recording held while the program ran
  std::uint64_t dropped_strands = 0;
  std::string unit = "units";  // of work and span (the report's)
  std::uint64_t wall_ns = 0;   // the measurement's wall-clock duration
  std::vector<record_site> sites;
  std::vector<record_frame> frames;
  std::vector<record_thread> threads;
  std::vector<record_task> tasks;
  std::vector<record_strand> strands;  // in a topological order of the graph
  std::vector<record_join> joins;
  std::vector<record_region> regions;
  std::vector<record_lock> locks;                      // by wait_start_ns
  std::vector<record_what_if_region> what_if_regions;  // in the order of record_strand::what_if's bits
  // The strands of the critical path, first to last; their spans add up to the
  // report's span.
  std::vector<std::uint32_t> critical_path;

  bool empty() const noexcept { return strands.empty(); }
  // The stack of a frame, outermost first, names joined by ';' (folded-stack
  // style, each name as folded_name writes it); node 0 is `root_name`.
  std::string stack_of(std::uint32_t frame, const std::string& root_name) const {
    std::vector<std::uint32_t> path;
    for (std::uint32_t f = frame; f != 0 && f < frames.size(); f = frames[f].parent) path.push_back(f);
    std::string out = folded_name(root_name);
    for (auto it = path.rbegin(); it != path.rend(); ++it) {
      const record_frame& n = frames[*it];
      out += ';';
      out += n.site < sites.size() ? folded_name(display_name(sites[n.site])) : std::string("?");
    }
    return out;
  }
  // "function (file:line)", or the tag.
  static std::string display_name(const record_site& s) {
    if (!s.tag.empty() || s.function.empty()) return s.name;
    return s.function + " (" + s.name + ")";
  }
  // A name as one frame of a folded stack, read the same by flamegraph.pl,
  // inferno and speedscope (docs/record.md, "Folded stacks"): ';' (between
  // frames) becomes ':'; what ends a line in any of them (control characters,
  // U+0085, and U+2028/U+2029, which end a line in JavaScript) becomes a space;
  // white space before a number that ends the name becomes '_' ("run 2" would make
  // flamegraph.pl and inferno read "stack 2 count" as a differential line with
  // two counts); an empty name becomes "?".
  static std::string folded_name(const std::string& name) {
    std::string s;
    s.reserve(name.size());
    for (std::size_t i = 0; i < name.size(); ++i) {
      const auto c = static_cast<unsigned char>(name[i]);
      const auto at = [&](std::size_t k) { return k < name.size() ? static_cast<unsigned char>(name[k]) : 0u; };
      if (c == ';') {
        s += ':';
      } else if (c < 0x20 || c == 0x7f) {
        s += ' ';
      } else if (c == 0xC2 && at(i + 1) == 0x85) {
        s += ' ';
        i += 1;
      } else if (c == 0xE2 && at(i + 1) == 0x80 && (at(i + 2) == 0xA8 || at(i + 2) == 0xA9)) {
        s += ' ';
        i += 2;
      } else {
        s += static_cast<char>(c);
      }
    }
    // A trailing number: digits, then optionally '.' and digits.
    std::size_t k = s.size();
    while (k > 0 && s[k - 1] >= '0' && s[k - 1] <= '9') --k;
    if (k > 0 && s[k - 1] == '.') {
      std::size_t j = k - 1;
      while (j > 0 && s[j - 1] >= '0' && s[j - 1] <= '9') --j;
      if (j < k - 1) k = j;
    }
    if (k < s.size()) {
      std::string tail = s.substr(k);
      std::size_t n = 0, j = k;
      while ((n = folded_space_before(s, j)) != 0) {
        j -= n;
        tail.insert(0, 1, '_');
      }
      if (j < k) s = s.substr(0, j) + tail;
    }
    if (s.empty()) s = "?";
    return s;
  }
  // The length of the white space character (Unicode White_Space, which inferno
  // splits at; flamegraph.pl's is the ASCII part) that ends at byte `end` of
  // `s`, or 0.
  static std::size_t folded_space_before(const std::string& s, std::size_t end) {
    const auto at = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    if (end >= 1 && (at(end - 1) == ' ' || (at(end - 1) >= 0x09 && at(end - 1) <= 0x0d))) return 1;
    if (end >= 2 && at(end - 2) == 0xC2 && (at(end - 1) == 0x85 || at(end - 1) == 0xA0)) return 2;
    if (end < 3) return 0;
    const unsigned a = at(end - 3), b = at(end - 2), c = at(end - 1);
    const bool space = (a == 0xE1 && b == 0x9A && c == 0x80) ||                                           // U+1680
                       (a == 0xE2 && b == 0x80 && (c <= 0x8A || c == 0xA8 || c == 0xA9 || c == 0xAF)) ||  // U+2000..
                       (a == 0xE2 && b == 0x81 && c == 0x9F) || (a == 0xE3 && b == 0x80 && c == 0x80);
    return space ? 3 : 0;
  }
};

namespace detail {
// What builds a measurement's record from its threads' buffers, the first time
// the record is read (detail/measurement/record_build.hpp).
struct record_source {
  virtual ~record_source() = default;
  virtual std::shared_ptr<const execution_record> build() = 0;
};
}  // namespace detail

// report::record: a shared pointer to a record that is built the first time it
// is read. A measurement keeps its threads' raw buffers; the record (strand ids
// become positions in a topological order, ticks become the report's unit) is
// built from them once, by whichever thread reads it first, and copies of the
// report share it. It reads as std::shared_ptr<const execution_record> does
// (`if (rep.record)`, `rep.record->strands`, `*rep.record`, `.get()`) and
// converts to one; a null one means the measurement was not recorded.
class record_ptr {
 public:
  record_ptr() noexcept = default;
  record_ptr(std::nullptr_t) noexcept {}  // implicit, as shared_ptr's
  template <class T, class = std::enable_if_t<std::is_convertible<T*, const execution_record*>::value>>
  record_ptr(std::shared_ptr<T> built) {  // implicit, as shared_ptr's
    if (!built) return;
    s_ = std::make_shared<state>();
    s_->rec = std::move(built);
    s_->done.store(true, std::memory_order_relaxed);
  }
  // A record to build when first read.
  explicit record_ptr(std::unique_ptr<detail::record_source> source) {
    if (!source) return;
    s_ = std::make_shared<state>();
    s_->source = std::move(source);
  }

  const execution_record* get() const {
    if (!s_) return nullptr;
    if (!s_->done.load(std::memory_order_acquire)) build();
    return s_->rec.get();
  }
  const execution_record& operator*() const { return *get(); }
  const execution_record* operator->() const { return get(); }
  explicit operator bool() const noexcept { return s_ != nullptr; }
  operator std::shared_ptr<const execution_record>() const {  // implicit, as the member's type was
    get();
    return s_ ? s_->rec : nullptr;
  }
  void reset() noexcept { s_.reset(); }
  // Whether the record has been built (false for a null one).
  bool built() const noexcept { return s_ && s_->done.load(std::memory_order_acquire); }

  friend bool operator==(const record_ptr& p, std::nullptr_t) noexcept { return !p; }
  friend bool operator==(std::nullptr_t, const record_ptr& p) noexcept { return !p; }
  friend bool operator!=(const record_ptr& p, std::nullptr_t) noexcept { return static_cast<bool>(p); }
  friend bool operator!=(std::nullptr_t, const record_ptr& p) noexcept { return static_cast<bool>(p); }

 private:
  struct state {
    std::mutex m;
    std::atomic<bool> done{false};
    std::unique_ptr<detail::record_source> source;  // released once built
    std::shared_ptr<const execution_record> rec;
  };
  void build() const {
    std::lock_guard<std::mutex> g(s_->m);
    if (s_->done.load(std::memory_order_relaxed)) return;
    s_->rec = s_->source->build();  // (a throw leaves the source for the next read)
    s_->source.reset();
    s_->done.store(true, std::memory_order_release);
  }
  std::shared_ptr<state> s_;
};

FORKSCALE_NAMESPACE_END
