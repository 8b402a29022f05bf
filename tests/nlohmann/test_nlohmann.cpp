// forkscale/nlohmann.hpp: a report and each kind of row to nlohmann::json and
// back. The JSON must be what report::to_json writes (parsed by nlohmann
// independently), and the round trip must give the report back, field for field
// (compared through the library's own JSON text, which covers every field).
#include <gtest/gtest.h>

#include <forkscale/forkscale.hpp>
#include <forkscale/nlohmann.hpp>

#include <nlohmann/json.hpp>

#include <string>

namespace fs = forkscale;

namespace {

fs::report sample() {
  fs::options o;
  o.clock = fs::clock_kind::cost;
  o.what_if.factors = {2, 4};
  fs::report r = fs::measure(
      "sample",
      [] {
        fs::charge(3);
        {
          fs::region phase("phase");
          auto t = fs::spawn([] {
            fs::what_if_region w("hot");
            fs::charge(40);
          });
          t();
          {
            fs::call_site cs;
            fs::charge(5);
          }
          fs::sync_point sp;
        }
      },
      o);
  r.diagnostics.push_back({"x.cpp:1 in f", "a made-up problem"});
  r.diagnostic_count = 1;
  return r;
}

TEST(Nlohmann, ReportIsTheLibrarysJson) {
  const fs::report r = sample();
  const nlohmann::json j = r;
  EXPECT_EQ(j, nlohmann::json::parse(r.to_json()));
  EXPECT_EQ(j.at("label"), "sample");
  EXPECT_EQ(j.at("regions").at(0).at("work").get<std::uint64_t>(), r.work());
  EXPECT_EQ(j.at("regions").size(), r.regions.size());
  const fs::report back = j.get<fs::report>();
  EXPECT_EQ(back.to_json(), r.to_json());
}

TEST(Nlohmann, EachKindOfRow) {
  const fs::report r = sample();
  ASSERT_GE(r.regions.size(), 2u);
  ASSERT_FALSE(r.call_sites.empty());
  ASSERT_FALSE(r.spawn_sites.empty());
  ASSERT_FALSE(r.what_if.empty());
  const nlohmann::json doc = nlohmann::json::parse(r.to_json());

  const nlohmann::json region = r.regions[1];
  EXPECT_EQ(region, doc.at("regions").at(1));
  EXPECT_EQ(region.get<fs::region_result>().path, r.regions[1].path);
  EXPECT_EQ(region.get<fs::region_result>().work, r.regions[1].work);

  const nlohmann::json call = r.call_sites[0];
  EXPECT_EQ(call, doc.at("call_sites").at(0));
  EXPECT_EQ(call.get<fs::call_site_profile>().name, r.call_sites[0].name);

  const nlohmann::json spawn = r.spawn_sites[0];
  EXPECT_EQ(spawn, doc.at("spawn_sites").at(0));
  EXPECT_EQ(spawn.get<fs::spawn_site_profile>().critical_span, r.spawn_sites[0].critical_span);

  const nlohmann::json w = r.what_if[0];
  EXPECT_EQ(w, doc.at("what_if").at(0));
  EXPECT_EQ(w.get<fs::what_if_result>().span_ticks_num, r.what_if[0].span_ticks_num);

  const nlohmann::json d = r.diagnostics[0];
  EXPECT_EQ(d.at("problem"), "a made-up problem");
  EXPECT_EQ(d.get<fs::diagnostic>().where, "x.cpp:1 in f");

  fs::lock_site_profile lock;
  lock.lock = "queue";
  lock.name = "q.cpp:3";
  lock.acquisitions = 4;
  lock.contended = 1;
  lock.wait_ns = 70;
  const nlohmann::json lk = lock;
  EXPECT_EQ(lk.at("wait_ns"), 70);
  EXPECT_EQ(lk.get<fs::lock_site_profile>().contended, 1u);
  EXPECT_EQ(lk.get<fs::lock_site_profile>().lock, "queue");

  fs::load_check l;
  l.checked = true;
  l.wait_ns = 12345;
  l.hardware_threads = 2;
  const nlohmann::json lj = l;
  EXPECT_EQ(lj.at("wait_ns"), 12345);
  EXPECT_EQ(lj.get<fs::load_check>().wait_ns, 12345u);
}

TEST(Nlohmann, BadDocumentsAreOneLineErrors) {
  nlohmann::json j = sample();
  j["regions"][0]["work"] = "lots";
  try {
    (void)j.get<fs::report>();
    FAIL() << "no error";
  } catch (const fs::error& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind("forkscale: ", 0), 0u) << m;
    EXPECT_NE(m.find("regions[0].work"), std::string::npos) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos);
  }
  nlohmann::json row = sample().regions[0];
  row["parallelism"] = 1e9;  // inconsistent with work / span
  EXPECT_THROW((void)row.get<fs::region_result>(), fs::error);
}

}  // namespace
