// Shared declarations of the two-translation-unit ODR test (fmt's
// ranges-odr-test.cc idea). odr_a.cpp and odr_b.cpp both include
// <forkscale/forkscale.hpp>: a non-inline function or global in the headers
// makes the link fail, and a per-TU copy of the engine state (a `static` where an
// inline variable belongs) makes a measurement in one TU miss the events of the
// other — the cross measurements below catch that.
#pragma once

#include <cstdint>

namespace odr_test {

// The fork-join program, defined once in each TU with the same shape:
//   charge(1); 3 x { spawn { charge(leaf) }, run inline }; charge(2); sync; charge(3)
void program_a(std::uint64_t leaf);
void program_b(std::uint64_t leaf);

// measure() under the cost clock, called in TU a (resp. b), over a program from
// either TU; each returns the report's work (resp. span).
std::uint64_t work_in_a(void (*program)(std::uint64_t), std::uint64_t leaf);
std::uint64_t work_in_b(void (*program)(std::uint64_t), std::uint64_t leaf);
std::uint64_t span_in_a(void (*program)(std::uint64_t), std::uint64_t leaf);
std::uint64_t span_in_b(void (*program)(std::uint64_t), std::uint64_t leaf);

//   work = 1 + 3*leaf + 2 + 3
//   span = 1 + max(leaf, 2) + 3   (the three children run parallel to the continuation)
constexpr std::uint64_t expected_work(std::uint64_t leaf) { return 1 + 3 * leaf + 2 + 3; }
constexpr std::uint64_t expected_span(std::uint64_t leaf) { return 1 + (leaf > 2 ? leaf : 2) + 3; }

}  // namespace odr_test
