// src/forkscale_ompt_tool.cpp: libforkscale_ompt.so, forkscale's OMPT tool as a
// shared library, for OpenMP programs built with clang -fopenmp and nothing of
// forkscale (docs/ompt.md, "Without rebuilding"). libomp loads it through
// OMP_TOOL_LIBRARIES, or finds its ompt_start_tool when it is preloaded
// (LD_PRELOAD: what `forkscale-report run` does, so that its wrappers of the
// runtime's entry points name the lines of taskloops and tail-called regions
// too). It measures the whole program, as FORKSCALE_OMPT=1 does with
// forkscale/ompt.hpp, and writes the report where FORKSCALE_REPORT says.
//
// Built with clang++ -fopenmp=libomp -shared -fPIC, header-only, with every
// symbol hidden but the runtime's entry points (tools/CMakeLists.txt).
#define FORKSCALE_DETAIL_OMPT_TOOL_LIBRARY 1

#include <forkscale/ompt.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "preload_common.hpp"

#if !FORKSCALE_DETAIL_OMPT_AVAILABLE
#error "src/forkscale_ompt_tool.cpp needs <omp-tools.h>: compile it with clang++ -fopenmp=libomp"
#endif

namespace {

bool wanted = true;

// Another OpenMP tool in the program itself (forkscale/ompt.hpp defines one):
// the runtime starts that one, not this one.
bool program_has_own_tool() {
  void* found = ::dlsym(RTLD_DEFAULT, "ompt_start_tool");
  if (!found || found == reinterpret_cast<void*>(&ompt_start_tool)) return false;
  Dl_info info{};
  Dl_info runtime{};
  void* runtime_symbol = ::dlsym(RTLD_DEFAULT, "__kmpc_global_thread_num");
  if (!::dladdr(found, &info)) return false;
  // libomp's own ompt_start_tool is the weak default that looks for a tool.
  return !(runtime_symbol && ::dladdr(runtime_symbol, &runtime) && runtime.dli_fbase == info.dli_fbase);
}

__attribute__((constructor)) void forkscale_ompt_tool_loaded() {
  const std::string self = forkscale_preload::object_name(reinterpret_cast<const void*>(&forkscale_ompt_tool_loaded));
  // libomp unloads the tool libraries it loaded when it shuts down, before the
  // exit handlers the tool registered have run: the library stays.
  Dl_info info{};
  if (::dladdr(reinterpret_cast<const void*>(&forkscale_ompt_tool_loaded), &info) && info.dli_fname)
    (void)::dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
  const bool preloaded = forkscale_preload::remove_from_list("LD_PRELOAD", self);
  forkscale_preload::remove_from_list("OMP_TOOL_LIBRARIES", self);
  if (program_has_own_tool() || forkscale_preload::program_has_forkscale()) {
    wanted = false;
    std::fprintf(stderr,
                 "forkscale: this program is built with forkscale and measures itself (forkscale/ompt.hpp reads "
                 "FORKSCALE_OMPT=1); %s steps aside\n",
                 self.c_str());
    return;
  }
  // The whole program, unless FORKSCALE_OMPT=0 says otherwise.
  ::setenv("FORKSCALE_OMPT", "1", 0);
  // Preloaded, the library is loaded before the runtime starts: the runtime is
  // started now, as forkscale/ompt.hpp does before main, so that the measurement
  // leaves the runtime's initialization and shutdown out. (Loaded by libomp
  // from OMP_TOOL_LIBRARIES, it is inside that initialization now.)
  if (preloaded) forkscale::detail::ompt::startup_check();
}

}  // namespace

namespace forkscale {
namespace detail {
namespace ompt {
bool tool_library_wanted() noexcept { return wanted; }
}  // namespace ompt
}  // namespace detail
}  // namespace forkscale
