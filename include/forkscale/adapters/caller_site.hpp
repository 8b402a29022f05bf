// caller_site.hpp: how an adapter's entry point whose arguments end in a pack —
// parallel_invoke(f1, ..., fn), fs::thread t(f, args...) — still names the
// caller's line. A defaulted `const site& where = site::current()` cannot follow a
// pack, so the *first* argument carries it: the parameter's type converts from the
// callable the caller passes, and that converting constructor takes the defaulted
// site, which the compiler evaluates at the caller's line (the way logging
// libraries take a source_location next to a format string). The callable is kept
// by reference, its type erased; the entry point calls it back with its own type.
//
// A call made for the caller by other code (std::vector::emplace_back(f, args...)
// constructing an fs::thread) names that code's line: there is no way around it.
#pragma once
#include <memory>
#include <type_traits>
#include <utility>

#include "../config.hpp"
#include "../site.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace caller {

// T, in a context where it is not deduced: a parameter of type
// thread_start<Owner, identity_t<Args>...> leaves Args to the other arguments.
template <class T>
struct identity {
  using type = T;
};
template <class T>
using identity_t = typename identity<T>::type;

// A reference to a callable, an object or a function, with its type erased; get<G>()
// gives it back as the G it was made from.
class callable_ref {
 public:
  template <class G>
  explicit callable_ref(G& g) noexcept {
    if constexpr (std::is_function<G>::value)
      function_ = reinterpret_cast<void (*)()>(&g);
    else
      object_ = const_cast<void*>(static_cast<const void*>(std::addressof(g)));
  }
  template <class G>
  G& get() const noexcept {
    if constexpr (std::is_function<G>::value)
      return *reinterpret_cast<G*>(function_);
    else
      return *static_cast<G*>(object_);
  }

 private:
  union {
    void* object_;
    void (*function_)();
  };
};

// The first callable of parallel_invoke(f1, ..., fn) with the caller's line; called
// through a const reference, as the others are. It refers to the caller's callable,
// which lives until the call returns.
class first_invocable {
 public:
  template <class F, class = std::enable_if_t<!std::is_same<std::decay_t<F>, first_invocable>::value>>
  first_invocable(const F& f, const site& where = site::current()) noexcept : fn_(f), call_(&call<F>), where_(where) {}

  void operator()() const { call_(fn_); }
  const site& where() const noexcept { return where_; }

 private:
  template <class F>
  static void call(const callable_ref& fn) {
    fn.get<const F>()();
  }

  callable_ref fn_;
  void (*call_)(const callable_ref&);
  site where_;
};

// The callable of a thread's constructor, Owner t(f, args...), with the caller's
// line. Calling it with the thread and the arguments calls
// Owner::start(thread, std::forward<F>(f), where, std::forward<Args>(args)...)
// with F the callable's own type (Owner befriends this class).
template <class Owner, class... Args>
class thread_start {
 public:
  template <class F, class = std::enable_if_t<!std::is_base_of<Owner, std::decay_t<F>>::value &&
                                              !std::is_same<std::decay_t<F>, thread_start>::value>>
  thread_start(F&& f, const site& where = site::current()) noexcept : fn_(f), start_(&start<F>), where_(where) {}

  void operator()(Owner& thread, Args&&... args) const { start_(fn_, thread, where_, std::forward<Args>(args)...); }

 private:
  template <class F>
  static void start(const callable_ref& fn, Owner& thread, const site& where, Args&&... args) {
    Owner::start(thread, std::forward<F>(fn.get<std::remove_reference_t<F>>()), where, std::forward<Args>(args)...);
  }

  callable_ref fn_;
  void (*start_)(const callable_ref&, Owner&, const site&, Args&&...);
  site where_;
};

}  // namespace caller
}  // namespace detail
FORKSCALE_NAMESPACE_END
