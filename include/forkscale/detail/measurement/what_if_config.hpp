// detail/measurement/what_if_config.hpp: a measurement's what-if
// configuration, from its options and the FORKSCALE_WHAT_IF environment
// variable.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../../config.hpp"
#include "../../report.hpp"
#include "../../site.hpp"
#include "../engine/session.hpp"
#include "../what_if/factors.hpp"
#include "../what_if/offsets.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

// Named call sites, each once, in the order first named.
inline std::vector<what_if_spec> distinct_specs(const std::vector<what_if_spec>& specs) {
  std::vector<what_if_spec> unique;
  for (const what_if_spec& sp : specs) {
    bool seen = false;
    for (const what_if_spec& u : unique) seen = seen || u.text == sp.text;
    if (!seen) unique.push_back(sp);
  }
  return unique;
}

// Throws when there are more factors or named call sites than a measurement
// analyses.
inline void check_what_if_counts(const std::vector<what_if_fraction>& factors,
                                 const std::vector<what_if_spec>& unique) {
  if (factors.size() > what_if_max_factors)
    throw error("forkscale: " + std::to_string(factors.size()) + " what-if factors; at most " +
                std::to_string(what_if_max_factors) + " are analysed");
  if (unique.size() > what_if_max_regions)
    throw error("forkscale: " + std::to_string(unique.size()) + " what-if call sites named; at most " +
                std::to_string(what_if_max_regions) + " are analysed");
}

// A FORKSCALE_WHAT_IF problem as one diagnostic: the error's text without its
// "forkscale: FORKSCALE_WHAT_IF: " (the printed line adds both back), control
// characters escaped so that it stays one line.
inline std::string what_if_env_problem(const std::string& what) {
  std::string t = what;
  for (const char* prefix : {"forkscale: ", "FORKSCALE_WHAT_IF: "})
    if (t.compare(0, std::strlen(prefix), prefix) == 0) t.erase(0, std::strlen(prefix));
  static const char hex[] = "0123456789abcdef";
  std::string out;
  for (const char ch : t) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 0xf];
    } else {
      out += ch;
    }
  }
  return out + "; the measurement goes on without what-if";
}

// FORKSCALE_WHAT_IF, added to the options' factors and call sites. A bad value
// is the environment's, not the program's: it throws nothing, but is diagnosed
// in one line and turns the what-if analysis off for this measurement.
inline void apply_what_if_env(session& s, std::vector<what_if_fraction>& factors, std::vector<what_if_spec>& specs) {
  const char* value = std::getenv("FORKSCALE_WHAT_IF");
  if (!value) return;
  try {
    std::vector<what_if_spec> all = specs;
    std::vector<what_if_fraction> env_factors;
    bool env_set = false;
    parse_what_if_env(value, all, env_factors, env_set);
    std::vector<what_if_fraction> f = env_set ? env_factors : factors;
    check_what_if_counts(f, distinct_specs(all));
    factors = std::move(f);
    specs = std::move(all);
  } catch (const error& e) {
    s.what_if_off = true;
    specs.clear();
    what_if_notice(&s, site::tagged("FORKSCALE_WHAT_IF", site{}), what_if_env_problem(e.what()));
  }
}

// The what-if configuration of a measurement: options (a bad one throws), then
// FORKSCALE_WHAT_IF (a bad one is diagnosed; see apply_what_if_env).
inline void configure_what_if(session& s, const what_if_options& o) {
  what_if_config& c = s.what_if;
  std::vector<what_if_fraction> factors;
  for (double v : o.factors) factors.push_back(make_factor(v, "options.what_if.factors"));
  std::vector<what_if_spec> specs;
  for (const std::string& t : o.call_sites) specs.push_back(parse_spec(t, "options.what_if.call_sites"));
  check_what_if_counts(factors, distinct_specs(specs));
  for (const std::string& t : o.assume_faster) c.assume.push_back(parse_spec(t, "options.what_if.assume_faster"));
  c.assume_factor = make_factor(o.assume_factor, "options.what_if.assume_factor");
  if (o.read_environment) apply_what_if_env(s, factors, specs);
  // No factors in the options is fine when FORKSCALE_WHAT_IF gives some.
  if (factors.empty() && !s.what_if_off)
    throw error("forkscale: options.what_if.factors is empty; give at least one factor");
  const std::vector<what_if_spec> unique = distinct_specs(specs);
  c.factors = factors;
  c.F = static_cast<unsigned>(factors.size());
  for (unsigned i = 0; i < c.F; ++i) {
    c.p[i] = factors[i].p;
    c.c[i] = factors[i].q - factors[i].p;
  }
  c.call_sites = unique;
  for (const what_if_spec& sp : unique) {
    what_if_known_region r;
    r.name = sp.text;
    r.spec = sp.text;
    r.call_site = true;
    if (sp.by_tag) r.tag = sp.tag;
    s.what_if_regions.push_back(std::move(r));
  }
  if (!c.assume.empty()) {
    c.scale = c.assume_factor.p;
    s.what_if_root_mask = what_if_scaled_bit;
    s.burden.store(s.burden.load() * static_cast<std::uint64_t>(c.scale));
    for (burden_choice& b : s.backend_burden) b.ticks *= static_cast<std::uint64_t>(c.scale);
  }
  s.what_if_calls = !c.call_sites.empty() || !c.assume.empty();
}

}  // namespace detail
FORKSCALE_NAMESPACE_END
