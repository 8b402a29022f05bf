// detail/util/function_ref.hpp: a callable passed by reference, without a
// template: how a template that takes the user's callable (fs::advise, a
// session's measure) hands it to code compiled once (the compiled form).
#pragma once
#include <memory>
#include <type_traits>
#include <utility>

#include "../../config.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

template <class Signature>
class function_ref;

// Refers to a callable that outlives it (as an argument does the call).
template <class R, class... Args>
class function_ref<R(Args...)> {
 public:
  template <class F, class = std::enable_if_t<!std::is_same<std::decay_t<F>, function_ref>::value>>
  function_ref(F& f) noexcept  // NOLINT(google-explicit-constructor): a parameter type
      : object_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_([](void* o, Args... a) -> R { return (*static_cast<F*>(o))(std::forward<Args>(a)...); }) {}

  R operator()(Args... a) const { return call_(object_, std::forward<Args>(a)...); }

 private:
  void* object_;
  R (*call_)(void*, Args...);
};

}  // namespace detail
FORKSCALE_NAMESPACE_END
