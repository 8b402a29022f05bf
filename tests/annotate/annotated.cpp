// tests/annotate/annotated.cpp: the annotated program, in a file that includes
// only the guards' header — no engine, no report.
#include <forkscale/annotate.hpp>

#include <cstdint>
#include <thread>
#include <utility>

namespace fs = forkscale;

#define ANNOTATE_TREE light_tree
#define ANNOTATE_GROUP light_group
#define ANNOTATE_HANDLE light_handle
#include "tree.inc"

// A spawn_scope opened with an empty token inside a measurement: the engine
// diagnoses it, reached from this file too.
void light_misuse() {
  fs::spawn_token empty;
  fs::spawn_scope sc(std::move(empty));
  fs::charge(2);
}
