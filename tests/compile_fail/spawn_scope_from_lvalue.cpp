// A child scope takes its token by move, so a token cannot be used twice by
// accident: passing an lvalue must not compile.
#include <forkscale/forkscale.hpp>

int main() {
  forkscale::spawn_token token = forkscale::spawn_point();
#ifdef FORKSCALE_EXPECT_COMPILE_ERROR
  forkscale::spawn_scope child(token);
#else
  forkscale::spawn_scope child(std::move(token));
#endif
}
