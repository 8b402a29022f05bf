// Links odr_a.cpp and odr_b.cpp, which both include <forkscale/forkscale.hpp>.
#include <gtest/gtest.h>

#include <cstdint>

#include "odr.hpp"

namespace {

using odr_test::expected_span;
using odr_test::expected_work;
using odr_test::program_a;
using odr_test::program_b;

constexpr std::uint64_t leaves[] = {0, 1, 7, 1000};

TEST(Odr, EachTranslationUnitMeasuresItsOwnProgram) {
  for (std::uint64_t leaf : leaves) {
    SCOPED_TRACE(leaf);
    const std::uint64_t a = odr_test::work_in_a(program_a, leaf);
    const std::uint64_t b = odr_test::work_in_b(program_b, leaf);
    EXPECT_EQ(a, expected_work(leaf));
    EXPECT_EQ(b, expected_work(leaf));
    EXPECT_EQ(a, b);
    EXPECT_EQ(odr_test::span_in_a(program_a, leaf), expected_span(leaf));
    EXPECT_EQ(odr_test::span_in_b(program_b, leaf), expected_span(leaf));
  }
}

TEST(Odr, AMeasurementSeesTheEventsOfTheOtherTranslationUnit) {
  for (std::uint64_t leaf : leaves) {
    SCOPED_TRACE(leaf);
    EXPECT_EQ(odr_test::work_in_a(program_b, leaf), expected_work(leaf));
    EXPECT_EQ(odr_test::work_in_b(program_a, leaf), expected_work(leaf));
    EXPECT_EQ(odr_test::span_in_a(program_b, leaf), expected_span(leaf));
    EXPECT_EQ(odr_test::span_in_b(program_a, leaf), expected_span(leaf));
  }
}

}  // namespace
