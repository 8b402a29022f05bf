// detail/burden/store.hpp: the burden file — where measured burdens are kept
// (burden_file), writing one backend's entry (store_burden) and reading it back
// (stored_burden). The file is JSON, schema "forkscale.burden" version 1
// (docs/predict.md): {"schema", "schema_version", "backends": [{"backend",
// "spawn_ns", "steal_ns", "steal_median_ns", "rounds", "cpu_model",
// "hardware_threads", "runnable_elsewhere", "measured_at"}]}; "cpu_model" is
// missing in entries stored before machines were recorded.
#pragma once
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#if defined(_WIN32)
#include <filesystem>
#include <system_error>
#else
#include <sys/stat.h>
#endif

#include "../../config.hpp"
#include "../../measured_burden.hpp"
#include "../input/json_reader.hpp"
#include "../output/json_writer.hpp"
#include "../util/atomic_file.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace burden {

inline std::string file_problem(const std::string& path, const std::string& what) {
  return "forkscale: burden file '" + printable_path(path) + "': " + what;
}

// What the file system says of a path: whether it exists, is a directory, and
// its size and modification time (to notice a changed file). <filesystem> is
// left out on POSIX: its std::quoted would be found for unqualified calls of
// programs that have a quoted() of their own.
struct file_facts {
  bool exists = false, directory = false;
  std::uint64_t size = 0;
  std::int64_t time_ns = 0;
};

inline file_facts facts_of(const std::string& path) {
  file_facts f;
#if defined(_WIN32)
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(st)) return f;
  f.exists = true;
  f.directory = std::filesystem::is_directory(st);
  if (!f.directory) f.size = std::filesystem::file_size(path, ec);
  f.time_ns = static_cast<std::int64_t>(std::filesystem::last_write_time(path, ec).time_since_epoch().count());
#else
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return f;
  f.exists = true;
  f.directory = S_ISDIR(st.st_mode);
  f.size = static_cast<std::uint64_t>(st.st_size);
  f.time_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
#endif
  return f;
}

// Makes the directories of `dir` that are missing; false when one cannot be made.
inline bool make_directories(const std::string& dir) {
#if defined(_WIN32)
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  return !ec;
#else
  for (std::size_t i = 1; i <= dir.size(); ++i) {
    if (i < dir.size() && dir[i] != '/') continue;
    const std::string part = dir.substr(0, i);
    if (facts_of(part).directory) continue;
    if (mkdir(part.c_str(), 0777) != 0 && !facts_of(part).directory) return false;
  }
  return true;
#endif
}

// The file's text; nothing when it does not exist.
inline std::optional<std::string> read_text(const std::string& path) {
  const file_facts f = facts_of(path);
  if (!f.exists) return std::nullopt;
  if (f.directory) throw error(file_problem(path, "it is a directory"));
  if (f.size > (std::uint64_t(1) << 20)) throw error(file_problem(path, "larger than 1 MiB"));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw error(file_problem(path, "cannot be opened"));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// One entry of the file, and whether it says which machine it was measured on
// (entries stored before machines were recorded have no "cpu_model").
struct stored_entry {
  measured_burden m;
  bool machine_recorded = true;
};

inline stored_entry entry_from(const json::value& v, const std::string& where) {
  const json::object_reader r(v, where);
  stored_entry out;
  measured_burden& m = out.m;
  const std::string name = r.str("backend");
  if (!backend_from_name(name, m.backend))
    throw json::json_error(r.required("backend").offset,
                           r.path("backend") + ": unknown backend " + json::quote_for_message(name));
  m.spawn_ns = r.number("spawn_ns");
  m.steal_ns = r.number("steal_ns");
  m.steal_median_ns = r.number("steal_median_ns");
  if (r.optional("thread_start_ns")) m.thread_start_ns = r.number("thread_start_ns");
  if (m.spawn_ns < 0 || m.steal_ns < 0 || m.steal_median_ns < 0 || m.thread_start_ns < 0)
    throw json::json_error(v.offset, where + ": a negative time");
  m.rounds = r.u32("rounds");
  m.hardware_threads = r.u32("hardware_threads");
  m.runnable_elsewhere = r.u32("runnable_elsewhere");
  m.measured_at = r.str("measured_at");
  out.machine_recorded = r.optional("cpu_model") != nullptr;
  if (out.machine_recorded) m.cpu_model = r.str("cpu_model");
  return out;
}

// Every entry of the file at `path` (none when it does not exist).
inline std::vector<stored_entry> read_entries(const std::string& path) {
  std::vector<stored_entry> out;
  const std::optional<std::string> text = read_text(path);
  if (!text) return out;
  try {
    const json::value doc = json::parse(*text);
    const json::object_reader top(doc, "");
    const json::value* schema = top.optional("schema");
    if (!schema || !schema->is(json::kind::string) || schema->text != "forkscale.burden")
      throw json::json_error(doc.offset, "not a forkscale.burden document");
    if (top.u64("schema_version") != 1)
      throw json::json_error(top.required("schema_version").offset, "schema_version is not 1");
    const json::value& list = top.array("backends");
    for (std::size_t i = 0; i < list.items.size(); ++i)
      out.push_back(entry_from(list.items[i], "backends[" + std::to_string(i) + "]"));
  } catch (const json::json_error& e) {
    throw error(file_problem(path, e.what()));
  }
  return out;
}

inline std::string entries_json(const std::vector<stored_entry>& entries) {
  output::json_writer j;
  j.begin_object();
  j.member("schema", "forkscale.burden");
  j.member("schema_version", std::uint64_t{1});
  j.key("backends");
  j.begin_array();
  for (const stored_entry& e : entries) {
    const measured_burden& m = e.m;
    j.begin_object();
    j.member("backend", to_string(m.backend));
    j.member("spawn_ns", m.spawn_ns);
    j.member("steal_ns", m.steal_ns);
    j.member("steal_median_ns", m.steal_median_ns);
    if (m.backend == backend::std_thread) j.member("thread_start_ns", m.thread_start_ns);
    j.member("rounds", static_cast<std::uint64_t>(m.rounds));
    if (e.machine_recorded) j.member("cpu_model", m.cpu_model);
    j.member("hardware_threads", static_cast<std::uint64_t>(m.hardware_threads));
    j.member("runnable_elsewhere", static_cast<std::uint64_t>(m.runnable_elsewhere));
    j.member("measured_at", m.measured_at);
    j.end_object();
  }
  j.end_array();
  j.end_object();
  return j.finish();
}

// The burden file as a measurement finds it: its entries, or why it could not
// be read (no problem when there is simply no file). The file is read again
// only when its path, size or time changed: a measurement costs one stat() here.
struct lookup {
  std::string path;
  std::vector<stored_entry> entries;
  std::string problem;
};

// (Defined with the reading of saved files, the `readers` part: the JSON
// reader stays out of the engine's file in the compiled form.)
FORKSCALE_INLINE lookup read_for_measurement();
#if FORKSCALE_DETAIL_DEFINES(readers)
FORKSCALE_INLINE lookup read_for_measurement() {
  struct cached {
    lookup l;
    file_facts facts;
    bool valid = false;
  };
  static std::mutex m;
  static cached c;
  lookup out;
  out.path = burden_file();
  if (out.path.empty()) return out;
  const file_facts f = facts_of(out.path);
  if (!f.exists) return out;
  std::lock_guard<std::mutex> g(m);
  if (!c.valid || c.l.path != out.path || c.facts.size != f.size || c.facts.time_ns != f.time_ns) {
    c = cached{lookup{out.path, {}, {}}, f, true};
    try {
      c.l.entries = read_entries(out.path);
    } catch (const error& e) {
      c.l.problem = e.what();
    }
  }
  return c.l;
}
#endif  // FORKSCALE_DETAIL_DEFINES(readers)

inline std::string machine_text(const std::string& cpu_model, unsigned threads) {
  return (cpu_model.empty() ? std::string("CPU model unknown") : "'" + printable_path(cpu_model) + "'") + ", " +
         std::to_string(threads) + " hardware threads";
}

// What the file gives a measurement of `b` on `here`: the entry measured on
// this machine, or nothing, with why an entry there is not used (`note`).
struct choice {
  std::optional<measured_burden> found;
  std::string note;
};

inline choice choose(const lookup& l, backend b, const machine_identity& here) {
  choice out;
  for (const stored_entry& e : l.entries) {
    if (e.m.backend != b) continue;
    const std::string entry = std::string("the ") + to_string(b) + " calibration in '" + printable_path(l.path) + "'";
    const std::string again = std::string("; calibrate here: forkscale-report calibrate --backend ") + to_string(b);
    if (!e.machine_recorded) {
      out.note =
          entry + " does not say which machine it was measured on (stored before machines were recorded)" + again;
    } else if (e.m.cpu_model != here.cpu_model || e.m.hardware_threads != here.hardware_threads) {
      out.note = entry + " was measured on another machine (" + machine_text(e.m.cpu_model, e.m.hardware_threads) +
                 "; this one: " + machine_text(here.cpu_model, here.hardware_threads) + ")" + again;
    } else {
      out.found = e.m;
      out.note.clear();
    }
  }
  return out;
}

}  // namespace burden
}  // namespace detail

#if FORKSCALE_DETAIL_DEFINES(readers)
FORKSCALE_INLINE std::string burden_file() {
  const char* file = std::getenv("FORKSCALE_BURDEN_FILE");
  if (file && *file) return file;
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && *xdg) return std::string(xdg) + "/forkscale/burden.json";
  const char* home = std::getenv("HOME");
  if (home && *home) return std::string(home) + "/.cache/forkscale/burden.json";
  return std::string();
}

FORKSCALE_INLINE void store_burden(const measured_burden& m, const std::string& path) {
  namespace db = detail::burden;
  if (path.empty())
    throw error("forkscale: nowhere to store the burden (set FORKSCALE_BURDEN_FILE, XDG_CACHE_HOME or HOME)");
  if (detail::backend_bit(m.backend) == 0) throw error("forkscale: store_burden: the burden names no backend");
  if (!std::isfinite(m.spawn_ns) || !std::isfinite(m.steal_ns) || m.spawn_ns < 0 || m.steal_ns < 0)
    throw error("forkscale: store_burden: the times are not finite non-negative numbers");
  std::vector<db::stored_entry> entries = db::read_entries(path);
  bool replaced = false;
  for (db::stored_entry& e : entries)
    if (e.m.backend == m.backend) {
      e = db::stored_entry{m, true};
      replaced = true;
    }
  if (!replaced) entries.push_back(db::stored_entry{m, true});
  const std::size_t slash = path.find_last_of('/');
  if (slash != std::string::npos && slash > 0 && !db::make_directories(path.substr(0, slash)))
    throw error(db::file_problem(path, "cannot make its directory: " + detail::errno_text(errno)));
  try {
    detail::write_file_atomically(path, db::entries_json(entries));
  } catch (const error& e) {
    // The writer names the file a report; say what it is.
    const std::string what = e.what();
    const std::size_t colon = what.find("': ");
    throw error(db::file_problem(path, colon == std::string::npos ? what : what.substr(colon + 3)));
  }
}

FORKSCALE_INLINE std::optional<measured_burden> stored_burden(backend b, const std::string& path) {
  if (path.empty()) return std::nullopt;
  for (const detail::burden::stored_entry& e : detail::burden::read_entries(path))
    if (e.m.backend == b) return e.m;
  return std::nullopt;
}
#endif  // FORKSCALE_DETAIL_DEFINES

FORKSCALE_NAMESPACE_END
