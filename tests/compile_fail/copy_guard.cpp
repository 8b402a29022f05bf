// Guards mark a place in one task: copying one must not compile.
#include <forkscale/forkscale.hpp>

int main() {
  forkscale::sync_point sp;
#ifdef FORKSCALE_EXPECT_COMPILE_ERROR
  forkscale::sync_point copy = sp;
#endif
}
