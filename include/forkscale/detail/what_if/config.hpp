// detail/what_if/config.hpp: a measurement's what-if configuration, from its
// options and the FORKSCALE_WHAT_IF environment variable.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "../../config.hpp"
#include "../../report.hpp"
#include "../engine/session.hpp"
#include "factors.hpp"
#include "offsets.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

// The what-if configuration of a measurement: options, then FORKSCALE_WHAT_IF.
inline void configure_what_if(session& s, const what_if_options& o) {
  wi_config& c = s.what_if;
  std::vector<wi_factor> factors;
  for (double v : o.factors) factors.push_back(make_factor(v, "options.what_if.factors"));
  std::vector<wi_spec> specs;
  for (const std::string& t : o.call_sites) specs.push_back(parse_spec(t, "options.what_if.call_sites"));
  if (o.read_environment) {
    bool env_factors = false;
    std::vector<wi_factor> ef;
    parse_what_if_env(std::getenv("FORKSCALE_WHAT_IF"), specs, ef, env_factors);
    if (env_factors) factors = ef;
  }
  if (factors.empty()) throw error("forkscale: options.what_if.factors is empty; give at least one factor");
  if (factors.size() > wi_max_factors)
    throw error("forkscale: " + std::to_string(factors.size()) + " what-if factors; at most " +
                std::to_string(wi_max_factors) + " are analysed");
  // One region per distinct named call site, in the order named.
  std::vector<wi_spec> unique;
  for (const wi_spec& sp : specs) {
    bool seen = false;
    for (const wi_spec& u : unique) seen = seen || u.text == sp.text;
    if (!seen) unique.push_back(sp);
  }
  if (unique.size() > wi_max_regions)
    throw error("forkscale: " + std::to_string(unique.size()) + " what-if call sites named; at most " +
                std::to_string(wi_max_regions) + " are analysed");
  c.factors = factors;
  c.F = static_cast<unsigned>(factors.size());
  for (unsigned i = 0; i < c.F; ++i) {
    c.p[i] = factors[i].p;
    c.c[i] = factors[i].q - factors[i].p;
  }
  c.call_sites = unique;
  for (const wi_spec& sp : unique) {
    wi_region r;
    r.name = sp.text;
    r.spec = sp.text;
    r.call_site = true;
    if (sp.by_tag) r.tag = sp.tag;
    s.what_if_regions.push_back(std::move(r));
  }
  for (const std::string& t : o.assume_faster) c.assume.push_back(parse_spec(t, "options.what_if.assume_faster"));
  c.assume_factor = make_factor(o.assume_factor, "options.what_if.assume_factor");
  if (!c.assume.empty()) {
    c.scale = c.assume_factor.p;
    s.what_if_root_mask = wi_scaled_bit;
    s.burden *= static_cast<std::uint64_t>(c.scale);
  }
  s.what_if_calls = !c.call_sites.empty() || !c.assume.empty();
}

}  // namespace detail
FORKSCALE_NAMESPACE_END
