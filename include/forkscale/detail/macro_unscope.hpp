// detail/macro_unscope.hpp: removes forkscale's internal macros at the end of the
// umbrella header, so that they do not leak into user code. (The public
// FORKSCALE_* macros, and the FORKSCALE_DETAIL_ ones they expand to, stay.)
#undef FORKSCALE_DETAIL_LIKELY
#undef FORKSCALE_DETAIL_UNLIKELY
#undef FORKSCALE_DETAIL_NOINLINE
#undef FORKSCALE_DETAIL_ALWAYS_INLINE
