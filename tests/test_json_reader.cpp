// The strict JSON reader (detail/json_reader.hpp) and reading reports back
// (report_io.hpp): what it accepts, what it refuses and with which message, and a
// fuzz test — thousands of mutations of real reports and studies (byte flips,
// truncations, insertions, deletions, duplications) must each give a report or a
// one-line forkscale::error, never a crash, a hang or another exception. Run it
// under ASan+UBSan too: cmake --preset asan && cmake --build --preset asan
// --target test_json_reader.
#include <forkscale/detail/input/report_reader.hpp>
#include <forkscale/forkscale.hpp>
#include <forkscale/read_report.hpp>
#include <forkscale/study/study.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace fs = forkscale;
namespace json = forkscale::detail::json;
namespace stdfs = std::filesystem;

namespace {

// ---- real documents ------------------------------------------------------------

long fib(int n) {
  fs::charge(1);
  if (n < 2) return n;
  long x = 0, y = 0;
  fs::spawn([&] { x = fib(n - 1); })();
  {
    fs::call_site cs;
    y = fib(n - 2);
  }
  { fs::sync_point sp; }
  return x + y;
}

// A report with nested regions, a diagnostic and labels that need escaping.
fs::report real_report() {
  fs::options opt;
  opt.clock = fs::clock_kind::cost;
  opt.on_diagnostic = [](const fs::diagnostic&) {};
  return fs::measure(
      "fib \"quoted\" <tag> \xE6\x97\xA5\xE6\x9C\xAC",
      [] {
        {
          fs::region r("phase\none");
          fib(12);
        }
        {
          fs::region r("phase two");
          fs::join_handle h;
          std::thread t(fs::spawn(h, [] { fib(10); }));
          fib(9);
          {
            fs::sync_point sp(h);
            t.join();
          }
        }
        // A misuse: a spawned callable destroyed without running.
        {
          auto lost = fs::spawn([] {});
          (void)lost;
        }
      },
      opt);
}

fs::study_result synthetic_study() {
  fs::study_result s;
  s.label = "study \"x\"";
  s.clock = fs::clock_kind::tsc;
  s.hardware_threads = 2;
  s.repetitions = 3;
  s.warmup = 1;
  s.baseline = fs::sample_stats::of({1000, 1010, 990});
  s.elision = fs::sample_stats::of({1040, 1050, 1030});
  for (unsigned p : {1u, 2u, 4u}) {
    fs::study_point pt;
    pt.processors = p;
    pt.oversubscribed = p > 2;
    const double t = 1200.0 / p + 30 * p;
    pt.time = fs::sample_stats::of({t, t + 7, t - 5});
    pt.raw_work = fs::sample_stats::of({1180.0 + 20 * p, 1185.0 + 20 * p, 1175.0 + 20 * p});
    pt.work = fs::sample_stats::of({1170.0 + 20 * p, 1175.0 + 20 * p, 1165.0 + 20 * p});
    pt.span = fs::sample_stats::of({300, 301, 299});
    pt.burdened_span = fs::sample_stats::of({500, 501, 499});
    pt.spawns = fs::sample_stats::of({40, 40, 40});
    s.points.push_back(pt);
  }
  s.probe_alone = fs::sample_stats::of({1000, 1002, 998});
  fs::bandwidth_point b;
  b.copies = 2;
  b.together = fs::sample_stats::of({1300, 1310, 1290});
  s.bandwidth.push_back(b);
  s.profile = real_report();
  s.warnings.push_back("a warning with <markup> and \"quotes\"");
  s.recompute();
  return s;
}

// ---- helpers -------------------------------------------------------------------

// The message of the forkscale::error `text` raises, or "" when it parses.
std::string report_error(const std::string& text) {
  try {
    fs::from_json(text);
    return std::string();
  } catch (const fs::error& e) {
    return e.what();
  }
}

std::string parse_error(const std::string& text, const json::limits& lim = json::limits{}) {
  try {
    json::parse(text, lim);
    return std::string();
  } catch (const json::json_error& e) {
    return e.what();
  }
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

}  // namespace

// ---- the parser ---------------------------------------------------------------

TEST(JsonReader, ParsesEveryKindOfValue) {
  const json::value v = json::parse(
      " {\"a\": [1, -2.5e3, 0, 18446744073709551615, true, false, null, \"s\\u00e9\\ud83d\\ude80\\n\\\"\"],"
      " \"b\": {}, \"c\": []} ");
  ASSERT_TRUE(v.is(json::kind::object));
  ASSERT_EQ(v.members.size(), 3u);
  const json::value& a = *v.find("a");
  ASSERT_EQ(a.items.size(), 8u);
  std::uint64_t u = 0;
  EXPECT_TRUE(json::number_as_u64(a.items[0], u));
  EXPECT_EQ(u, 1u);
  double d = 0;
  EXPECT_TRUE(json::number_as_double(a.items[1], d));
  EXPECT_EQ(d, -2500.0);
  EXPECT_FALSE(json::number_as_u64(a.items[1], u));
  EXPECT_TRUE(json::number_as_u64(a.items[3], u));
  EXPECT_EQ(u, std::numeric_limits<std::uint64_t>::max());
  EXPECT_TRUE(a.items[4].boolean);
  EXPECT_FALSE(a.items[5].boolean);
  EXPECT_TRUE(a.items[6].is(json::kind::null));
  EXPECT_EQ(a.items[7].text, "s\xC3\xA9\xF0\x9F\x9A\x80\n\"");
  EXPECT_EQ(a.offset, 7u);
}

TEST(JsonReader, RefusesWithOneLineMessagesAndOffsets) {
  struct bad {
    const char* text;
    const char* message;
  };
  const bad cases[] = {
      {"", "byte 0: the input is empty"},
      {"  \n", "byte 3: the input holds only whitespace"},
      {"\xEF\xBB\xBF{}", "byte 0: a byte order mark is not allowed"},
      {"{} x", "byte 3: unexpected character 'x' after the JSON value"},
      {"[1,]", "byte 3: expected a value after ',' (trailing commas are not allowed), found character ']'"},
      {"{\"a\":1,}", "byte 7: expected a key after ',' (trailing commas are not allowed), found character '}'"},
      {"[01]", "byte 2: leading zeros are not allowed in a number, found character '1'"},
      {"[1.]", "byte 3: expected a digit after the decimal point, found character ']'"},
      {"[1e]", "byte 3: expected a digit in the exponent, found character ']'"},
      {"[-]", "byte 2: expected a digit in a number, found character ']'"},
      {"[NaN]", "byte 1: expected a JSON value, found character 'N'"},
      {"[Infinity]", "byte 1: expected a JSON value, found character 'I'"},
      {"[tru]", "byte 1: expected a JSON value, found character 't'"},
      {"// c\n{}", "byte 0: expected a JSON value, found character '/'"},
      {"{\"a\" 1}", "byte 5: expected ':' after an object key, found character '1'"},
      {"{1:2}", "byte 1: expected a string as object key, found character '1'"},
      {"{\"a\":1 \"b\":2}", "byte 7: expected ',' or '}' in an object, found character '\"'"},
      {"[1 2]", "byte 3: expected ',' or ']' in an array, found character '2'"},
      {"\"abc", "byte 0: unterminated string"},
      {"\"a\tb\"", "byte 2: control character inside a string (must be escaped), found byte 0x09"},
      {"\"\\x\"", "byte 2: invalid escape in a string, found character 'x'"},
      {"\"\\u12G4\"", "byte 5: expected four hex digits after \\u, found character 'G'"},
      {"\"\\ud800\"", "byte 1: unpaired surrogate in a \\u escape"},
      {"\"\\udc00\"", "byte 1: unpaired surrogate in a \\u escape"},
      {"\"\\ud800\\u0041\"", "byte 1: unpaired surrogate in a \\u escape"},
      {"\"\xFF\"", "byte 1: invalid UTF-8 in a string"},
      {"\"\xC0\xAF\"", "byte 1: invalid UTF-8 in a string"},
      {"\"\xED\xA0\x80\"", "byte 1: invalid UTF-8 in a string"},
      {"\"\xE6\x97", "byte 1: invalid UTF-8 in a string (cut short)"},
      {"{\"a\":1,\"b\":2,\"a\":3}", "byte 13: duplicate object key 'a'"},
      {"[1,", "byte 3: unexpected end of input: expected a JSON value"},
      {"{", "byte 1: unexpected end of input: expected a string as object key"},
  };
  for (const auto& c : cases) {
    const std::string msg = parse_error(std::string(c.text));
    EXPECT_EQ(msg, c.message) << "input: " << c.text;
    EXPECT_EQ(msg.find('\n'), std::string::npos);
  }
}

TEST(JsonReader, LimitsBoundDepthSizeAndValues) {
  std::string deep(100000, '[');
  EXPECT_EQ(parse_error(deep), "byte 64: arrays and objects nested more than 64 deep");
  std::string ok(64, '[');
  ok += std::string(64, ']');
  EXPECT_EQ(parse_error(ok), "");

  json::limits small;
  small.max_bytes = 10;
  EXPECT_EQ(parse_error("[1,2,3,4,5,6]", small), "byte 0: the input is 13 bytes, more than the limit of 10");
  json::limits few;
  few.max_values = 3;
  EXPECT_EQ(parse_error("[1,2,3]", few), "byte 5: more than 3 values in one document");
}

// ---- reports ------------------------------------------------------------------

TEST(ReportIo, RoundTripsARealReport) {
  const fs::report rep = real_report();
  ASSERT_GE(rep.regions.size(), 3u);
  ASSERT_GE(rep.diagnostic_count, 1u);
  const std::string text = rep.to_json();
  const fs::report back = fs::from_json(text);
  EXPECT_EQ(back.to_json(), text);
  EXPECT_EQ(back.to_text(true), rep.to_text(true));
  EXPECT_EQ(back.to_csv(), rep.to_csv());
  EXPECT_EQ(back.work(), rep.work());
  EXPECT_EQ(back.regions[1].label, rep.regions[1].label);
}

// A report with per-site profiles built by hand (whatever the engine fills in):
// text that needs escaping (valid UTF-8, so it reads back byte for byte), the
// extremes of every integer column, negative spans and a NaN percentage.
fs::report profile_report() {
  fs::report rep = real_report();
  rep.call_sites.clear();
  rep.spawn_sites.clear();
  const auto u64 = std::numeric_limits<std::uint64_t>::max();
  const auto i64_min = std::numeric_limits<std::int64_t>::min();
  const auto i64_max = std::numeric_limits<std::int64_t>::max();
  const std::string texts[] = {"plain",
                               "comma, \"quote\"",
                               "new\nline\ttab\x01",
                               "=cmd|' /C calc'!A0",
                               "+plus",
                               "-minus",
                               "@at",
                               "\xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x9A\x80 \xE2\x80\xA8",
                               ""};
  const auto m = [](std::uint64_t count, std::uint64_t work, std::int64_t span) {
    fs::site_measure x;
    x.count = count;
    x.work = work;
    x.span = span;
    return x;
  };
  std::uint64_t k = 0;
  for (const std::string& t : texts) {
    fs::call_site_profile c;
    c.name = t;
    c.file = "src/" + t + ".cpp";
    c.line = k == 0 ? std::numeric_limits<unsigned>::max() : static_cast<unsigned>(k);
    c.function = "fn " + t;
    c.tag = t;
    c.kind = k == 0 ? fs::site_kind::root : k % 2 ? fs::site_kind::call : fs::site_kind::spawn;
    c.recursive = k % 3 == 1;
    const auto i = static_cast<std::int64_t>(k);
    c.top_call_site_on_work = m(k == 1 ? u64 : k, k == 2 ? u64 : 1000 * k + 1, k == 3 ? i64_max : 7 * i);
    c.top_caller_on_work = m(k, 999 * k, k == 4 ? i64_min : 3 * i);
    c.local_on_work = m(2 * k, 17 * k, -i);
    c.top_call_site_on_span = m(k / 2, 11 * k, 0);
    c.top_caller_on_span = m(1, 13 * k, i64_max - i);
    c.local_on_span = m(k % 3, 19 * k, k == 5 ? i64_min : -3 * i + 5);
    rep.call_sites.push_back(c);

    fs::spawn_site_profile p;
    p.name = t;
    p.file = c.file;
    p.line = static_cast<unsigned>(100 + k);
    p.function = c.function;
    p.tag = t;
    p.kind = k == 0 ? fs::site_kind::root : fs::site_kind::spawn;
    p.recursive = k % 2 == 0;
    p.tasks = k == 6 ? u64 : k + 1;
    p.work = k == 7 ? u64 : 23 * k;
    p.span = k == 8 ? 0 : 5 * k + 1;
    p.exclusive_work = k == 8 ? u64 : 29 * k;
    p.critical_span = k == 3 ? i64_min : k == 4 ? i64_max : -i;
    p.critical_percent = k == 5 ? std::numeric_limits<double>::quiet_NaN() : 0.1 * static_cast<double>(k) - 0.3;
    rep.spawn_sites.push_back(p);
    ++k;
  }
  return rep;
}

bool same_double(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

void expect_same_measure(const fs::site_measure& a, const fs::site_measure& b, const std::string& where) {
  EXPECT_EQ(a.count, b.count) << where;
  EXPECT_EQ(a.work, b.work) << where;
  EXPECT_EQ(a.span, b.span) << where;
}

void expect_same_sites(const fs::report& a, const fs::report& b) {
  ASSERT_EQ(a.call_sites.size(), b.call_sites.size());
  for (std::size_t i = 0; i < a.call_sites.size(); ++i) {
    const fs::call_site_profile &x = a.call_sites[i], &y = b.call_sites[i];
    const std::string w = "call_sites[" + std::to_string(i) + "]";
    EXPECT_EQ(x.name, y.name) << w;
    EXPECT_EQ(x.file, y.file) << w;
    EXPECT_EQ(x.line, y.line) << w;
    EXPECT_EQ(x.function, y.function) << w;
    EXPECT_EQ(x.tag, y.tag) << w;
    EXPECT_EQ(x.kind, y.kind) << w;
    EXPECT_EQ(x.recursive, y.recursive) << w;
    expect_same_measure(x.top_call_site_on_work, y.top_call_site_on_work, w + ".top_call_site_on_work");
    expect_same_measure(x.top_caller_on_work, y.top_caller_on_work, w + ".top_caller_on_work");
    expect_same_measure(x.local_on_work, y.local_on_work, w + ".local_on_work");
    expect_same_measure(x.top_call_site_on_span, y.top_call_site_on_span, w + ".top_call_site_on_span");
    expect_same_measure(x.top_caller_on_span, y.top_caller_on_span, w + ".top_caller_on_span");
    expect_same_measure(x.local_on_span, y.local_on_span, w + ".local_on_span");
  }
  ASSERT_EQ(a.spawn_sites.size(), b.spawn_sites.size());
  for (std::size_t i = 0; i < a.spawn_sites.size(); ++i) {
    const fs::spawn_site_profile &x = a.spawn_sites[i], &y = b.spawn_sites[i];
    const std::string w = "spawn_sites[" + std::to_string(i) + "]";
    EXPECT_EQ(x.name, y.name) << w;
    EXPECT_EQ(x.file, y.file) << w;
    EXPECT_EQ(x.line, y.line) << w;
    EXPECT_EQ(x.function, y.function) << w;
    EXPECT_EQ(x.tag, y.tag) << w;
    EXPECT_EQ(x.kind, y.kind) << w;
    EXPECT_EQ(x.recursive, y.recursive) << w;
    EXPECT_EQ(x.tasks, y.tasks) << w;
    EXPECT_EQ(x.work, y.work) << w;
    EXPECT_EQ(x.span, y.span) << w;
    EXPECT_EQ(x.exclusive_work, y.exclusive_work) << w;
    EXPECT_EQ(x.critical_span, y.critical_span) << w;
    EXPECT_TRUE(same_double(x.critical_percent, y.critical_percent))
        << w << ": " << x.critical_percent << " vs " << y.critical_percent;
  }
}

TEST(ReportIo, RoundTripsSiteProfiles) {
  const fs::report rep = profile_report();
  const std::string text = rep.to_json();
  const fs::report back = fs::from_json(text);
  expect_same_sites(rep, back);
  EXPECT_EQ(back.to_json(), text);
  EXPECT_EQ(back.to_text(true), rep.to_text(true));
  EXPECT_EQ(back.call_sites_csv(), rep.call_sites_csv());
  EXPECT_EQ(back.spawn_sites_csv(), rep.spawn_sites_csv());
  EXPECT_EQ(back.check_profile(), rep.check_profile());
  // The engine's own profile, if it made one, round-trips too.
  const fs::report real = real_report();
  expect_same_sites(real, fs::from_json(real.to_json()));
}

TEST(ReportIo, ReadsReportsWrittenBeforeSiteProfiles) {
  fs::report rep = real_report();
  rep.call_sites.clear();
  rep.spawn_sites.clear();
  const std::string current = rep.to_json();
  std::string old = current;
  const std::string keys = "  \"call_sites\": [],\n  \"spawn_sites\": [],\n";
  const std::size_t at = old.find(keys);
  ASSERT_NE(at, std::string::npos) << current;
  old.erase(at, keys.size());
  const fs::report back = fs::from_json(old);
  EXPECT_TRUE(back.call_sites.empty());
  EXPECT_TRUE(back.spawn_sites.empty());
  EXPECT_EQ(back.to_json(), current);
  EXPECT_EQ(back.check_profile(), "");
}

TEST(ReportIo, SiteProfileProblemsAreNamed) {
  const std::string good = profile_report().to_json();
  const auto replaced = [&](const std::string& from, const std::string& to) {
    std::string t = good;
    const std::size_t at = t.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return at == std::string::npos ? t : t.replace(at, from.size(), to);
  };
  const auto expect_error = [&](const std::string& text, const std::string& part) {
    const std::string e = report_error(text);
    EXPECT_TRUE(starts_with(e, "forkscale: invalid report JSON: byte ")) << e;
    EXPECT_NE(e.find(part), std::string::npos) << "'" << e << "' does not contain '" << part << "'";
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  };
  expect_error(replaced("\"kind\": \"call\"", "\"kind\": \"jump\""),
               "call_sites[1].kind: unknown site kind 'jump' (expected root, call or spawn)");
  expect_error(replaced("\"recursive\": true", "\"recursive\": \"yes\""),
               "call_sites[1].recursive: expected true or false, found a string");
  expect_error(replaced("\"span\": -9223372036854775808", "\"span\": -9223372036854775809"),
               ".span: expected a signed 64-bit integer, found '-9223372036854775809'");
  expect_error(replaced("\"span\": -9223372036854775808", "\"span\": -1.5"),
               ".span: expected a signed 64-bit integer, found '-1.5'");
  expect_error(replaced("\"span\": -9223372036854775808", "\"span\": \"-1\""),
               ".span: expected an integer, found a string");
  expect_error(replaced("\"line\": 4294967295", "\"line\": 4294967296"), "call_sites[0].line: 4294967296 is too large");
  fs::report plain = real_report();
  plain.call_sites.clear();
  std::string object = plain.to_json();
  const std::string empty_array = "\"call_sites\": []";
  ASSERT_NE(object.find(empty_array), std::string::npos);
  expect_error(object.replace(object.find(empty_array), empty_array.size(), "\"call_sites\": {}"),
               "call_sites: expected an array, found an object");
  expect_error(replaced("\"top_caller_on_work\": {", "\"top_caller_on_work\": [{"), "expected");
  expect_error(replaced("\"critical_percent\": null", "\"critical_percent\": \"NaN\""),
               "critical_percent: expected a number or null, found a string");
  // A corrupted digit makes the stated parallelism disagree with the row's work and span.
  const fs::report rep = profile_report();
  const fs::spawn_site_profile& p = rep.spawn_sites[2];
  expect_error(replaced("\"tasks\": 3,\n      \"work\": " + std::to_string(p.work),
                        "\"tasks\": 3,\n      \"work\": " + std::to_string(p.work + 1)),
               "spawn_sites[2].parallelism is");
  const fs::call_site_profile& c = rep.call_sites[1];
  ASSERT_GT(c.local_on_span.span, 0);
  expect_error(
      replaced(
          "\"local_on_span\": {\n        \"count\": 1,\n        \"work\": " + std::to_string(c.local_on_span.work),
          "\"local_on_span\": {\n        \"count\": 1,\n        \"work\": " + std::to_string(c.local_on_span.work + 1)),
      "call_sites[1].local_on_span.parallelism is");
  // A missing member of a row.
  expect_error(replaced("\"exclusive_work\": 0,", ""), "spawn_sites[0]: missing key 'exclusive_work'");
}

TEST(ReportIo, SchemaProblemsAreNamed) {
  const std::string good = real_report().to_json();
  const auto replaced = [&](const std::string& from, const std::string& to) {
    std::string t = good;
    const std::size_t at = t.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return t.replace(at, from.size(), to);
  };
  EXPECT_EQ(report_error(replaced("\"schema\": \"forkscale.report\"", "\"schema\": \"forkscale.study\"")),
            "forkscale: invalid report JSON: byte 14: not a forkscale.report document (its schema is "
            "'forkscale.study')");
  EXPECT_EQ(report_error(replaced("\"schema\": \"forkscale.report\",", "")),
            "forkscale: invalid report JSON: byte 0: not a forkscale.report document (no \"schema\" key)");
  EXPECT_NE(report_error(replaced("\"schema_version\": 1", "\"schema_version\": 2"))
                .find("schema_version 2 is newer than this reader understands (1)"),
            std::string::npos);
  EXPECT_NE(report_error(replaced("\"schema_version\": 1", "\"schema_version\": 0")).find("schema_version 0 is not"),
            std::string::npos);
  EXPECT_NE(
      report_error(replaced("\"clock\": \"cost\"", "\"clock\": \"sundial\"")).find("clock: unknown clock 'sundial'"),
      std::string::npos);
  EXPECT_NE(report_error(replaced("\"burden\": 15000", "\"burden\": -1"))
                .find("burden: expected an unsigned 64-bit integer, found '-1'"),
            std::string::npos);
  EXPECT_NE(report_error(replaced("\"burden\": 15000", "\"burden\": 1.5")).find("burden: expected an unsigned"),
            std::string::npos);
  EXPECT_NE(report_error(replaced("\"burden\": 15000", "\"burden\": \"15000\""))
                .find("burden: expected an unsigned integer, found a string"),
            std::string::npos);
  EXPECT_NE(report_error(replaced("\"burden\": 15000", "\"burden\": 18446744073709551616"))
                .find("burden: expected an unsigned 64-bit"),
            std::string::npos);
  // A corrupted digit makes the stated parallelism disagree with work / span.
  const fs::report rep = real_report();
  const std::string work = "\"work\": " + std::to_string(rep.regions[0].work);
  EXPECT_NE(report_error(replaced(work, "\"work\": " + std::to_string(rep.regions[0].work + 1)))
                .find("regions[0].parallelism is"),
            std::string::npos);
  // Unknown keys are ignored, as the schema asks.
  EXPECT_EQ(report_error(replaced("\"schema_version\": 1,", "\"schema_version\": 1, \"future\": [1, {\"x\": null}],")),
            "");
}

TEST(ReportIo, ReadReportNamesTheFile) {
  const stdfs::path dir =
      stdfs::temp_directory_path() / ("forkscale_json_reader_" + std::to_string(std::random_device{}()));
  stdfs::create_directories(dir);
  const std::string good = (dir / "good.json").string();
  real_report().write_json(good);
  EXPECT_EQ(fs::read_report(good).to_json(), fs::from_json(real_report().to_json()).to_json());

  const auto message = [](const std::string& path) {
    try {
      fs::read_report(path);
      return std::string();
    } catch (const fs::error& e) {
      return std::string(e.what());
    }
  };
  const std::string missing = (dir / "missing.json").string();
  EXPECT_EQ(message(missing), "forkscale: cannot read report '" + missing + "': No such file or directory");
  EXPECT_EQ(message(dir.string()), "forkscale: cannot read report '" + dir.string() + "': it is a directory");
  const std::string empty = (dir / "empty.json").string();
  std::ofstream(empty).close();
  EXPECT_EQ(message(empty), "forkscale: cannot read report '" + empty + "': byte 0: the input is empty");
  const std::string cut = (dir / "cut.json").string();
  std::ofstream(cut) << real_report().to_json().substr(0, 100);
  EXPECT_TRUE(
      starts_with(message(cut), "forkscale: cannot read report '" + cut + "': byte 100: unexpected end of input"))
      << message(cut);
  EXPECT_THROW(json::read_file(good, "report", 10), fs::error);
  std::error_code ec;
  stdfs::remove_all(dir, ec);
}

// ---- fuzz -------------------------------------------------------------------------

namespace {

struct fuzz_counts {
  int parsed = 0;
  int refused = 0;
};

// Feeds `text` to `read`: it must return, or throw forkscale::error with one
// line that begins with `prefix` and names a byte offset inside the input.
template <class Read>
void expect_graceful(const std::string& text, const std::string& prefix, Read read, fuzz_counts& counts) {
  try {
    read(text);
    ++counts.parsed;
  } catch (const fs::error& e) {
    ++counts.refused;
    const std::string msg = e.what();
    ASSERT_TRUE(starts_with(msg, prefix + "byte ")) << msg;
    ASSERT_EQ(msg.find('\n'), std::string::npos) << msg;
    const std::size_t offset = std::stoull(msg.substr(prefix.size() + 5));
    ASSERT_LE(offset, text.size()) << msg;
  } catch (const std::exception& e) {
    FAIL() << "unexpected exception " << e.what() << " for input of " << text.size() << " bytes";
  }
}

std::vector<std::string> mutations(const std::string& seed, unsigned count, std::uint64_t rng_seed) {
  std::mt19937_64 rng(rng_seed);
  const auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % (n ? n : 1)); };
  static const std::string tokens[] = {"{",
                                       "}",
                                       "[",
                                       "]",
                                       "\"",
                                       ",",
                                       ":",
                                       "\\",
                                       "\\u",
                                       "\\ud800",
                                       "-",
                                       "0",
                                       "1e999",
                                       "null",
                                       "true",
                                       "\xFF",
                                       std::string(1, '\0'),
                                       "\xE2\x80\xA8",
                                       "18446744073709551616",
                                       "NaN",
                                       " ",
                                       "\n",
                                       "9999999999",
                                       ".5"};
  std::vector<std::string> out;
  out.reserve(count);
  for (unsigned i = 0; i < count; ++i) {
    std::string t = seed;
    const unsigned edits = 1 + static_cast<unsigned>(rng() % 3);
    for (unsigned e = 0; e < edits && !t.empty(); ++e) {
      switch (rng() % 8) {
        case 0:  // flip a bit
          t[pick(t.size())] ^= static_cast<char>(1u << (rng() % 8));
          break;
        case 1:  // replace a byte
          t[pick(t.size())] = static_cast<char>(rng() & 0xff);
          break;
        case 2:  // truncate
          t.resize(pick(t.size()));
          break;
        case 3:  // insert a token
          t.insert(pick(t.size() + 1), tokens[pick(sizeof tokens / sizeof tokens[0])]);
          break;
        case 4: {  // delete a span
          const std::size_t at = pick(t.size());
          t.erase(at, 1 + pick(16));
          break;
        }
        case 5: {  // duplicate a span
          const std::size_t at = pick(t.size());
          const std::string span = t.substr(at, 1 + pick(64));
          t.insert(pick(t.size() + 1), span);
          break;
        }
        case 6: {  // change a digit
          const std::size_t at = t.find_first_of("0123456789", pick(t.size()));
          if (at != std::string::npos) t[at] = static_cast<char>('0' + rng() % 10);
          break;
        }
        default: {  // swap two bytes
          const std::size_t a = pick(t.size()), b = pick(t.size());
          std::swap(t[a], t[b]);
        }
      }
    }
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace

TEST(ReportIoFuzz, MutatedReportsGiveAReportOrOneLineError) {
  const std::string seed = real_report().to_json();
  fuzz_counts counts;
  const std::string prefix = "forkscale: invalid report JSON: ";
  const auto read = [](const std::string& text) {
    const fs::report r = fs::from_json(text);
    // Whatever was accepted writes out and reads back to the same report.
    const std::string again = r.to_json();
    if (fs::from_json(again).to_json() != again) throw std::logic_error("report does not round-trip");
  };
  for (const std::string& t : mutations(seed, 6000, 20240601)) {
    expect_graceful(t, prefix, read, counts);
    if (::testing::Test::HasFatalFailure()) return;
  }
  // Every truncation.
  for (std::size_t n = 0; n < seed.size(); ++n) {
    expect_graceful(seed.substr(0, n), prefix, read, counts);
    if (::testing::Test::HasFatalFailure()) return;
  }
  EXPECT_GT(counts.refused, 5000);
  EXPECT_GT(counts.parsed, 20);  // edits inside strings and whitespace keep a valid report
  RecordProperty("parsed", counts.parsed);
  RecordProperty("refused", counts.refused);
}

TEST(ReportIoFuzz, MutatedSiteProfilesGiveAReportOrOneLineError) {
  const std::string seed = profile_report().to_json();
  fuzz_counts counts;
  const auto read = [](const std::string& text) {
    const fs::report r = fs::from_json(text);
    const std::string again = r.to_json();
    if (fs::from_json(again).to_json() != again) throw std::logic_error("report does not round-trip");
    (void)r.to_text(true);
    (void)r.call_sites_csv();
    (void)r.spawn_sites_csv();
    (void)r.check_profile();
  };
  for (const std::string& t : mutations(seed, 4000, 31337)) {
    expect_graceful(t, "forkscale: invalid report JSON: ", read, counts);
    if (::testing::Test::HasFatalFailure()) return;
  }
  EXPECT_GT(counts.refused, 3000);
  EXPECT_GT(counts.parsed, 20);
}

TEST(ReportIoFuzz, MutatedStudiesGiveAStudyOrOneLineError) {
  const std::string seed = synthetic_study().to_json();
  ASSERT_EQ(fs::study_from_json(seed).to_json(), seed);
  fuzz_counts counts;
  const auto read = [](const std::string& text) {
    const fs::study_result s = fs::study_from_json(text);
    const std::string again = s.to_json();
    if (fs::study_from_json(again).to_json() != again) throw std::logic_error("study does not round-trip");
  };
  for (const std::string& t : mutations(seed, 3000, 777)) {
    expect_graceful(t, "forkscale: invalid study JSON: ", read, counts);
    if (::testing::Test::HasFatalFailure()) return;
  }
  EXPECT_GT(counts.refused, 2000);
  EXPECT_GT(counts.parsed, 5);
}

TEST(ReportIoFuzz, RandomBytesAndStructures) {
  std::mt19937_64 rng(99);
  fuzz_counts counts;
  const auto read = [](const std::string& text) { fs::from_json(text); };
  const std::string alphabet = "{}[]\",:0123456789-+.eEtruefalsn \\u\n\t\x01\xC3\xA9\xFF";
  for (int i = 0; i < 3000; ++i) {
    std::string t;
    const std::size_t n = rng() % 200;
    for (std::size_t k = 0; k < n; ++k) t += alphabet[rng() % alphabet.size()];
    expect_graceful(t, "forkscale: invalid report JSON: ", read, counts);
    if (::testing::Test::HasFatalFailure()) return;
  }
  // Deep nesting of every kind stops at the depth limit, without recursion trouble.
  for (const char* open : {"[", "{\"a\":", "[{\"a\":[", "[\"x\","}) {
    std::string t;
    for (int k = 0; k < 20000; ++k) t += open;
    expect_graceful(t, "forkscale: invalid report JSON: ", read, counts);
  }
}

// ---- what-if rows ----------------------------------------------------------------

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

// A real measurement with two what-if regions and a named call site that never
// runs (whose rows are all zeros).
fs::report what_if_report() {
  fs::options opt;
  opt.clock = fs::clock_kind::cost;
  opt.what_if.read_environment = false;
  opt.what_if.factors = {1.5, 4, inf};
  opt.what_if.call_sites = {"no_such_file.cpp:12"};
  return fs::measure(
      "what if",
      [] {
        {
          fs::what_if_region g("serial, \"part\" \xE6\x97\xA5");
          fs::charge(70);
        }
        fs::spawn([] { fs::charge(20); })();
        {
          fs::what_if_region g("combine");
          fs::charge(30);
        }
        fs::sync_point sp;
      },
      opt);
}

// Hand-made rows: infinite factor, parallelism and gain, a NaN gain, extreme
// integers, text that needs escaping.
fs::report hand_what_if_report() {
  fs::report rep = real_report();
  fs::what_if_result w;
  w.region = "=tag, \"q\" \xE6\x97\xA5 \xE2\x80\xA8";
  w.source = fs::what_if_source::call_site;
  w.file = "src/a\nb.cpp";
  w.line = std::numeric_limits<unsigned>::max();
  w.function = "f<int>";
  w.tag = w.region;
  w.model = fs::what_if_model::optimized;
  w.factor = inf;
  w.executed = true;
  w.entries = std::numeric_limits<std::uint64_t>::max();
  w.region_work = 12345;
  w.work = 0.1;
  w.span = 0;
  w.burdened_span = 3.5;
  w.parallelism = inf;
  w.gain = inf;
  w.span_ticks_num = std::numeric_limits<std::int64_t>::min();
  w.span_ticks_den = std::numeric_limits<std::int64_t>::max();
  rep.what_if.push_back(w);
  w.factor = 1.0 / 3.0;
  w.model = fs::what_if_model::parallelized;
  w.source = fs::what_if_source::region;
  w.work = 1000.0 / 3.0;
  w.span = 7.25;
  w.parallelism = w.work / w.span;
  w.gain = std::numeric_limits<double>::quiet_NaN();
  w.span_ticks_num = 29;
  w.span_ticks_den = 4;
  rep.what_if.push_back(w);
  fs::what_if_result never;
  never.region = "no_such_file.cpp:12";
  never.source = fs::what_if_source::call_site;
  never.executed = false;
  rep.what_if.push_back(never);
  return rep;
}

void expect_same_what_if(const fs::report& a, const fs::report& b) {
  ASSERT_EQ(a.what_if.size(), b.what_if.size());
  for (std::size_t i = 0; i < a.what_if.size(); ++i) {
    const fs::what_if_result &x = a.what_if[i], &y = b.what_if[i];
    const std::string w = "what_if[" + std::to_string(i) + "]";
    EXPECT_EQ(x.region, y.region) << w;
    EXPECT_EQ(x.source, y.source) << w;
    EXPECT_EQ(x.file, y.file) << w;
    EXPECT_EQ(x.line, y.line) << w;
    EXPECT_EQ(x.function, y.function) << w;
    EXPECT_EQ(x.tag, y.tag) << w;
    EXPECT_EQ(x.model, y.model) << w;
    EXPECT_TRUE(same_double(x.factor, y.factor)) << w << ": " << x.factor << " vs " << y.factor;
    EXPECT_EQ(x.executed, y.executed) << w;
    EXPECT_EQ(x.entries, y.entries) << w;
    EXPECT_EQ(x.region_work, y.region_work) << w;
    EXPECT_TRUE(same_double(x.work, y.work)) << w;
    EXPECT_TRUE(same_double(x.span, y.span)) << w;
    EXPECT_TRUE(same_double(x.burdened_span, y.burdened_span)) << w;
    EXPECT_TRUE(same_double(x.parallelism, y.parallelism)) << w << ": " << x.parallelism << " vs " << y.parallelism;
    EXPECT_TRUE(same_double(x.gain, y.gain)) << w << ": " << x.gain << " vs " << y.gain;
    EXPECT_EQ(x.span_ticks_num, y.span_ticks_num) << w;
    EXPECT_EQ(x.span_ticks_den, y.span_ticks_den) << w;
  }
}

}  // namespace

TEST(ReportIo, RoundTripsWhatIfRowsExactly) {
  const fs::report real = what_if_report();
  ASSERT_EQ(real.what_if.size(), 4u * 3u * 2u);
  EXPECT_FALSE(real.what_if.back().executed);
  for (const fs::report& rep : {real, hand_what_if_report()}) {
    const std::string text = rep.to_json();
    const fs::report back = fs::from_json(text);
    expect_same_what_if(rep, back);
    EXPECT_EQ(back.to_json(), text);
    EXPECT_EQ(back.to_text(true), rep.to_text(true));
    EXPECT_EQ(back.what_if_csv(), rep.what_if_csv());
  }
  // The writer's convention: +infinity as the string "inf", NaN as null.
  const std::string hand = hand_what_if_report().to_json();
  EXPECT_NE(hand.find("\"factor\": \"inf\","), std::string::npos) << hand;
  EXPECT_NE(hand.find("\"parallelism\": \"inf\",\n      \"gain\": \"inf\","), std::string::npos) << hand;
  EXPECT_NE(hand.find("\"gain\": null,"), std::string::npos) << hand;
  EXPECT_NE(hand.find("\"span_ticks_num\": -9223372036854775808,"), std::string::npos) << hand;
}

TEST(ReportIo, ReadsReportsWrittenBeforeWhatIf) {
  fs::report rep = real_report();
  rep.what_if.clear();
  const std::string current = rep.to_json();
  std::string old = current;
  const std::string key = "  \"what_if\": [],\n";
  const std::size_t at = old.find(key);
  ASSERT_NE(at, std::string::npos) << current;
  old.erase(at, key.size());
  const fs::report back = fs::from_json(old);
  EXPECT_TRUE(back.what_if.empty());
  EXPECT_EQ(back.to_json(), current);
  EXPECT_EQ(back.what_if_text(), "");
}

TEST(ReportIo, WhatIfProblemsAreNamed) {
  const std::string good = hand_what_if_report().to_json();
  const auto replaced = [&](const std::string& from, const std::string& to) {
    std::string t = good;
    const std::size_t at = t.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return at == std::string::npos ? t : t.replace(at, from.size(), to);
  };
  const auto expect_error = [&](const std::string& text, const std::string& part) {
    const std::string e = report_error(text);
    EXPECT_TRUE(starts_with(e, "forkscale: invalid report JSON: byte ")) << e;
    EXPECT_NE(e.find(part), std::string::npos) << "'" << e << "' does not contain '" << part << "'";
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  };
  expect_error(replaced("\"factor\": \"inf\"", "\"factor\": \"Infinity\""),
               "what_if[0].factor: expected a number, \"inf\" or null, found the string 'Infinity'");
  expect_error(replaced("\"factor\": \"inf\"", "\"factor\": true"),
               "what_if[0].factor: expected a number, \"inf\" or null, found a boolean");
  expect_error(replaced("\"model\": \"optimized\"", "\"model\": \"faster\""),
               "what_if[0].model: unknown what-if model 'faster' (expected parallelized or optimized)");
  expect_error(replaced("\"source\": \"region\"", "\"source\": \"guard\""),
               "what_if[1].source: unknown what-if source 'guard'");
  expect_error(replaced("\"executed\": true", "\"executed\": 1"), "what_if[0].executed: expected true or false");
  expect_error(replaced("\"span_ticks_den\": 4", "\"span_ticks_den\": 0"),
               "what_if[1].span_ticks_den: 0 is not positive");
  expect_error(replaced("\"entries\": 18446744073709551615", "\"entries\": -1"),
               "what_if[0].entries: expected an unsigned 64-bit integer");
  // A corrupted digit of the span makes the stated parallelism disagree.
  expect_error(replaced("\"span\": 7.25", "\"span\": 7.35"), "what_if[1].parallelism is");
  expect_error(replaced("\"region_work\": 12345,", ""), "what_if[0]: missing key 'region_work'");
  fs::report none = real_report();
  std::string object = none.to_json();
  const std::string empty_array = "\"what_if\": []";
  ASSERT_NE(object.find(empty_array), std::string::npos);
  expect_error(object.replace(object.find(empty_array), empty_array.size(), "\"what_if\": {}"),
               "what_if: expected an array, found an object");
}

TEST(ReportIoFuzz, MutatedWhatIfRowsGiveAReportOrOneLineError) {
  fs::report rep = hand_what_if_report();
  for (const auto& w : what_if_report().what_if) rep.what_if.push_back(w);
  const std::string seed = rep.to_json();
  fuzz_counts counts;
  const auto read = [](const std::string& text) {
    const fs::report r = fs::from_json(text);
    const std::string again = r.to_json();
    if (fs::from_json(again).to_json() != again) throw std::logic_error("report does not round-trip");
    (void)r.to_text(true);
    (void)r.what_if_text();
    (void)r.what_if_csv();
  };
  for (const std::string& t : mutations(seed, 3000, 4242)) {
    expect_graceful(t, "forkscale: invalid report JSON: ", read, counts);
    if (::testing::Test::HasFatalFailure()) return;
  }
  EXPECT_GT(counts.refused, 2000);
  EXPECT_GT(counts.parsed, 20);
}
