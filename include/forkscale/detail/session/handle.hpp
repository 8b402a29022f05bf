// detail/session/handle.hpp: what fs::session (session.hpp) calls of its
// session_core (core.hpp): the totals, the running count, the records and the
// snapshots. Declared here so that a file that uses a session does not parse
// the merger and the snapshot writers; defined at the end of core.hpp (inline
// in the header-only form, once in the compiled one).
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "../../clock.hpp"
#include "../../config.hpp"
#include "../../record.hpp"
#include "../../report.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

class session_core;

class session_handle {
 public:
  using record_entry = std::pair<std::string, std::shared_ptr<const execution_record>>;

  // See session_core: throws forkscale::error on a bad path or period.
  FORKSCALE_INLINE session_handle(std::string label, clock_kind clock, std::string path, std::chrono::nanoseconds every,
                                  bool rotate);
  FORKSCALE_INLINE ~session_handle();
  session_handle(const session_handle&) = delete;
  session_handle& operator=(const session_handle&) = delete;

  FORKSCALE_INLINE void start();
  FORKSCALE_INLINE void finish(const std::string& label, const report& rep);
  FORKSCALE_INLINE void abandon() noexcept;
  FORKSCALE_INLINE void nested();
  FORKSCALE_INLINE std::uint64_t finished() const;
  FORKSCALE_INLINE std::uint64_t running() const;
  FORKSCALE_INLINE std::vector<record_entry> records() const;
  FORKSCALE_INLINE const std::string& label() const noexcept;
  FORKSCALE_INLINE report snapshot();
  FORKSCALE_INLINE void write(const std::string& path);
  // write_snapshot("") is an error: the message names the session.
  [[noreturn]] FORKSCALE_INLINE void empty_path() const;

 private:
  std::unique_ptr<session_core> core_;
};

}  // namespace detail
FORKSCALE_NAMESPACE_END
