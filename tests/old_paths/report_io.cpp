#include <forkscale/report_io.hpp>
#include <string>
std::string old_path_report_io() {
  const forkscale::report r = forkscale::from_json(forkscale::report{}.to_json());
  return r.empty() ? "report_io.hpp" : "";
}
