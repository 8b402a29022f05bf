// integrations/nlohmann.hpp: a forkscale report, and each of its rows, as
// nlohmann::json, and back — with the schema of report::to_json
// (docs/report-schema.md), because the conversion goes through forkscale's own
// writer and reader:
//
//   #include <forkscale/nlohmann.hpp>    // needs <nlohmann/json.hpp>
//   nlohmann::json j = rep;               // the whole report
//   fs::report back = j.get<fs::report>();
//   nlohmann::json row = rep.regions[1];  // one region (or call site, spawn site,
//                                         // what-if row, lock row, diagnostic,
//                                         // load check)
//
// A document that is not a valid report (or row) throws forkscale::error with
// one line naming the problem, as fs::from_json does.
#pragma once
#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

#include "../config.hpp"
#include "../read_report.hpp"
#include "../report.hpp"

FORKSCALE_NAMESPACE_BEGIN

inline void to_json(nlohmann::json& j, const report& r) { j = nlohmann::json::parse(r.to_json()); }
inline void from_json(const nlohmann::json& j, report& r) { r = forkscale::from_json(j.dump()); }

namespace detail {
namespace nlohmann_rows {

// A row goes through a report that holds it alone.
template <class Row>
nlohmann::json row_to_json(std::vector<Row> report::*member, const char* key, const Row& row) {
  report holder;
  (holder.*member).push_back(row);
  return nlohmann::json::parse(holder.to_json()).at(key).at(0);
}

template <class Row>
Row row_from_json(std::vector<Row> report::*member, const char* key, const nlohmann::json& j) {
  nlohmann::json doc = nlohmann::json::parse(report{}.to_json());
  doc[key] = nlohmann::json::array({j});
  const std::string k = key;
  if (k == "diagnostics") doc["diagnostic_count"] = 1;
  if (k == "regions" && j.is_object() && j.value("depth", 0u) != 0u) {  // a report's first row is a root
    report root_holder;
    root_holder.regions.emplace_back();
    doc[key].insert(doc[key].begin(), nlohmann::json::parse(root_holder.to_json()).at("regions").at(0));
  }
  report holder = forkscale::from_json(doc.dump());
  if ((holder.*member).empty()) throw error(std::string("forkscale: expected a row in \"") + key + "\"");
  return std::move((holder.*member).back());
}

}  // namespace nlohmann_rows
}  // namespace detail

#define FORKSCALE_DETAIL_NLOHMANN_ROW(Row, member)                         \
  inline void to_json(nlohmann::json& j, const Row& r) {                   \
    j = detail::nlohmann_rows::row_to_json(&report::member, #member, r);   \
  }                                                                        \
  inline void from_json(const nlohmann::json& j, Row& r) {                 \
    r = detail::nlohmann_rows::row_from_json(&report::member, #member, j); \
  }
FORKSCALE_DETAIL_NLOHMANN_ROW(region_result, regions)
FORKSCALE_DETAIL_NLOHMANN_ROW(call_site_profile, call_sites)
FORKSCALE_DETAIL_NLOHMANN_ROW(spawn_site_profile, spawn_sites)
FORKSCALE_DETAIL_NLOHMANN_ROW(what_if_result, what_if)
FORKSCALE_DETAIL_NLOHMANN_ROW(lock_site_profile, locks)
FORKSCALE_DETAIL_NLOHMANN_ROW(diagnostic, diagnostics)
#undef FORKSCALE_DETAIL_NLOHMANN_ROW

inline void to_json(nlohmann::json& j, const load_check& l) {
  report holder;
  holder.load = l;
  j = nlohmann::json::parse(holder.to_json()).at("load");
}
inline void from_json(const nlohmann::json& j, load_check& l) {
  nlohmann::json doc = nlohmann::json::parse(report{}.to_json());
  doc["load"] = j;
  l = forkscale::from_json(doc.dump()).load;
}

FORKSCALE_NAMESPACE_END
