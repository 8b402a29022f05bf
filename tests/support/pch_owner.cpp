// The owner of the unit tests' precompiled header (forkscale_test_pch in
// tests/CMakeLists.txt): the tests reuse the header it precompiles.
#include <gtest/gtest.h>
#include <forkscale/forkscale.hpp>
