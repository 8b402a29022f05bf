#include <forkscale/study.hpp>
#include <string>
std::string old_path_study() {
  forkscale::study_options o;
  return o.repetitions > 0 ? "study.hpp" : "";
}
