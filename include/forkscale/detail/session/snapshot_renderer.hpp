// detail/session/snapshot_renderer.hpp: where the HTML page (study/html_page.hpp)
// leaves its renderer for a session's .html snapshots.
#pragma once
#include <string>

#include "../../config.hpp"
#include "../../report.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

// The HTML page is opt-in (forkscale/study/html.hpp, which the umbrella header does
// not include): that header sets this to its to_html when a program includes
// it, so a session can write .html snapshots without making every program
// compile the page.
using snapshot_renderer = std::string (*)(const report&);
inline snapshot_renderer& snapshot_html_renderer() noexcept {
  static snapshot_renderer r = nullptr;
  return r;
}

}  // namespace detail
FORKSCALE_NAMESPACE_END
