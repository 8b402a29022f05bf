// predict.hpp: the run time of a recorded program on P processors, predicted by
// replaying its strand graph (report::record) on P virtual processors
// (docs/predict.md).
//
//   fs::options o;  o.record = true;                       // or FORKSCALE_RECORD=1
//   fs::report rep = fs::measure("fib", [] { fib(30); }, o);
//   fs::prediction p = fs::predict(rep, {1, 2, 4, 8, 16, 32, 64});
//   std::cout << p.to_text();                               // or p.to_json()
//
// Two replays model a work-stealing runtime: a greedy list scheduler (Graham),
// whose time lies within Brent's bound T1/P <= TP <= T1/P + T∞ when the
// runtime costs nothing, and a randomized work-stealing scheduler (work-first,
// as Cilk), run over several seeds. A third models a thread per spawn (a
// std::thread program): every spawn starts an OS thread, the runnable threads
// share the P cores (processor sharing, as the kernel's time slices), a join
// blocks its thread. A strand costs what the record says it added to a path;
// the runtime's costs (spawn, steal, failed steal attempt, thread start) come
// from the replay_model, by default from the report's burden; every prediction
// carries the scheduler it used and the assumptions it was made under, as text.
//
// The declarations are in prediction.hpp; in the header-only form this header
// also brings their definitions.
#pragma once
#include "prediction.hpp"

#if FORKSCALE_DETAIL_DEFINES(analyses)
#include "detail/output/prediction.hpp"
#include "detail/predict/run.hpp"
#endif
