// A spawn token is consumed once: copying it must not compile.
#include <forkscale/forkscale.hpp>

int main() {
  forkscale::spawn_token token = forkscale::spawn_point();
#ifdef FORKSCALE_EXPECT_COMPILE_ERROR
  forkscale::spawn_token copy = token;
#endif
  forkscale::spawn_scope child(std::move(token));
}
