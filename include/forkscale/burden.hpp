// burden.hpp: the burden measured instead of assumed (docs/predict.md,
// "Measured burden"). Cilkview charges every continuation edge 15,000 cycles, a
// guess for every runtime and machine; fs::calibrate_burden times what a spawn
// and a steal cost for one backend on this machine with a micro-benchmark the
// library ships, and store_burden keeps the figures, with the machine they were
// measured on, in a small file that later measurements on this machine read
// once their backend is known (options.backend, or with `automatic` the library
// of the first spawn through an adapter):
//
//   fs::measured_burden b = fs::calibrate_burden(fs::backend::tbb);  // needs adapters/tbb.hpp
//   fs::store_burden(b);                                             // burden_file()
//   fs::options o;  // the first fs::tbb spawn makes the backend tbb: burden = b.steal_ns
//
// `forkscale-report calibrate [--backend std_thread|tbb|openmp]` does the same.
// The std::thread micro-benchmark is always there; oneTBB's comes with
// forkscale/adapters/tbb.hpp and OpenMP's with forkscale/adapters/openmp.hpp
// (compiled with OpenMP): a translation unit that includes the adapter makes
// its backend calibratable.
//
// The declarations are in measured_burden.hpp; in the header-only form this header
// also brings their definitions.
#pragma once
#include "measured_burden.hpp"

#if FORKSCALE_DETAIL_DEFINES(measure)
#include "detail/burden/calibrate.hpp"
#endif
#if FORKSCALE_DETAIL_DEFINES(measure) || FORKSCALE_DETAIL_DEFINES(readers)
#include "detail/burden/store.hpp"
#endif
