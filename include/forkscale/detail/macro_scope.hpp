// detail/macro_scope.hpp: internal helper macros. No include guard on purpose:
// forkscale.hpp removes them at its end (detail/macro_unscope.hpp), and a header
// parsed later (an adapter) includes this file again to get them back.
#ifndef FORKSCALE_DETAIL_LIKELY
#if defined(__GNUC__) || defined(__clang__)
#define FORKSCALE_DETAIL_LIKELY(x) __builtin_expect(!!(x), 1)
#define FORKSCALE_DETAIL_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define FORKSCALE_DETAIL_NOINLINE __attribute__((noinline))
// Inlined into its caller whatever the size of the translation unit around it
// (the engine's small hot functions and its observer points).
#define FORKSCALE_DETAIL_ALWAYS_INLINE __attribute__((always_inline)) inline
#else
#define FORKSCALE_DETAIL_LIKELY(x) (x)
#define FORKSCALE_DETAIL_UNLIKELY(x) (x)
#define FORKSCALE_DETAIL_NOINLINE
#define FORKSCALE_DETAIL_ALWAYS_INLINE inline
#endif
#endif
