#include <forkscale/std_thread.hpp>
#include <string>
std::string old_path_std_thread() {
  forkscale::thread t([] {});
  t.join();
  return "std_thread.hpp";
}
