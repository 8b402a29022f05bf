#include <forkscale/serial.hpp>
#include <string>
std::string old_path_serial() {
  int x = 0;
  forkscale::serial::parallel_invoke([&] { ++x; }, [&] { ++x; });
  return x == 2 ? "serial.hpp" : "";
}
