// A spawned task is consumed once: copying it must not compile.
#include <forkscale/forkscale.hpp>

int main() {
  auto task = forkscale::spawn([] {});
#ifdef FORKSCALE_EXPECT_COMPILE_ERROR
  auto copy = task;
  copy();
#endif
  task();
}
