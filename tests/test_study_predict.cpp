// The scaling study's prediction (study_result::prediction, docs/predict.md):
// a study records its 1-thread run and replays it up to predict_up_to
// processors; the prediction at P = 1 is the measured T1 by construction, the
// errors are those of the measured means, the JSON reads back (and a file whose
// errors disagree with its runs is refused), and the text and the HTML page
// show it. No assertion depends on a timing.
#include <forkscale/forkscale.hpp>
#include <forkscale/study/html.hpp>
#include <forkscale/study/study.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

namespace fs = forkscale;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::uint64_t spin(std::uint64_t n) {
  std::uint64_t x = n;
  for (std::uint64_t i = 0; i < n; ++i) x = x * 6364136223846793005ull + 1442695040888963407ull;
  return x;
}

std::atomic<std::uint64_t> sink{0};

// A tree of 2^depth leaves of spinning, split in halves; std::threads for the
// first levels when p > 1, inline below.
void tree(int depth, int thread_levels) {
  if (depth == 0) {
    sink += spin(20000);
    return;
  }
  if (thread_levels > 0) {
    fs::join_handle h;
    std::thread t(fs::spawn(h, [=] { tree(depth - 1, thread_levels - 1); }));
    tree(depth - 1, thread_levels - 1);
    fs::sync_point sp(h);
    t.join();
  } else {
    fs::spawn([=] { tree(depth - 1, 0); })();
    tree(depth - 1, 0);
    fs::sync_point sp;
  }
}

struct counted_workload {
  std::atomic<unsigned> parallel_runs{0};
  fs::study_workload make() {
    fs::study_workload w;
    w.baseline = [] { sink += spin(20000 * 16); };
    w.parallel = [this](unsigned p) {
      ++parallel_runs;
      tree(4, p > 1 ? 2 : 0);
    };
    return w;
  }
};

fs::study_options small(unsigned warmup) {
  fs::study_options o;
  o.processors = {1, 2};
  o.repetitions = 2;
  o.warmup = warmup;
  o.hardware_threads = 2;
  o.bandwidth_probe = false;
  o.predict_up_to = 16;
  o.show_progress = fs::progress_mode::off;
  // One clock for every run: `automatic` takes thread_cpu for a run that starts
  // while the machine is oversubscribed, whose default burden rounds apart from
  // the TSC's by a nanosecond.
  o.measure.clock = fs::clock_kind::steady;
  return o;
}

TEST(StudyPrediction, RecordsTheOneThreadRunAndReplaysIt) {
  counted_workload w;
  const fs::study_result s = fs::run_study("tree", w.make(), small(1));
  EXPECT_EQ(w.parallel_runs.load(), 2u * 3);  // the last warm-up round is the recorded one: no run more
  const fs::study_prediction& p = s.prediction;
  ASSERT_FALSE(p.empty()) << p.note;
  EXPECT_TRUE(p.note.empty());
  std::vector<unsigned> ps;
  for (const auto& pt : p.points) ps.push_back(pt.processors);
  EXPECT_EQ(ps, (std::vector<unsigned>{1, 2, 4, 8, 16}));
  // Scaled to the measured T1: the prediction at P = 1 is T1, its error 0.
  EXPECT_NEAR(p.at(1)->time, s.t1(), 1e-9 * s.t1());
  EXPECT_NEAR(p.at(1)->error, 0.0, 1e-9);
  EXPECT_NEAR(p.scale * p.work, s.t1(), 1e-6 * s.t1());  // no spawn cost: T1 of the replay is the work
  for (const auto& pt : p.points) {
    SCOPED_TRACE(pt.processors);
    EXPECT_LE(pt.time_min, pt.time);
    EXPECT_LE(pt.time, pt.time_max);
    EXPECT_GE(pt.time_min, pt.lower_time * (1 - 1e-9));  // the work and span laws
    EXPECT_EQ(pt.was_measured(), pt.processors <= 2);
    if (pt.was_measured()) {
      EXPECT_EQ(pt.measured, s.at(pt.processors)->time.mean);
      EXPECT_DOUBLE_EQ(pt.error, (pt.time - pt.measured) / pt.measured);
    }
  }
  EXPECT_EQ(p.model.steal_cost, static_cast<double>(s.profile.burden));
  EXPECT_FALSE(p.assumptions.empty());
  // JSON, text, HTML.
  EXPECT_EQ(fs::study_from_json(s.to_json()).to_json(), s.to_json());
  EXPECT_TRUE(contains(s.to_text(), "6) Predicted from the 1-thread record")) << s.to_text();
  const std::string html = fs::to_html(s);
  EXPECT_TRUE(contains(html, "<section id=\"fs-study-prediction\""));
  EXPECT_TRUE(contains(html, "id=\"fs-plot-prediction"));
  EXPECT_TRUE(contains(html, "id=\"fs-study-prediction-table\""));
  EXPECT_FALSE(fs::prediction_svg(s).empty());
}

// The OS-thread replay in a study: one deterministic time per P (min = max),
// no greedy time, the scale still the measured T1 over the work; the JSON reads
// back the same, and the text and HTML say which scheduler predicted.
TEST(StudyPrediction, TheOsThreadReplay) {
  counted_workload w;
  fs::study_options o = small(1);
  o.replay.scheduler = fs::replay_scheduler::os_threads;
  o.replay.thread_start_cost = 1000;
  const fs::study_result s = fs::run_study("tree", w.make(), o);
  const fs::study_prediction& p = s.prediction;
  ASSERT_FALSE(p.empty()) << p.note;
  EXPECT_EQ(p.model.scheduler, fs::replay_scheduler::os_threads);
  EXPECT_EQ(p.model.thread_start_cost, 1000);
  EXPECT_NEAR(p.scale * p.work, s.t1(), 1e-6 * s.t1());
  for (const auto& pt : p.points) {
    SCOPED_TRACE(pt.processors);
    EXPECT_EQ(pt.time_min, pt.time);
    EXPECT_EQ(pt.time_max, pt.time);
    EXPECT_TRUE(std::isnan(pt.greedy_time));
    EXPECT_GE(pt.time, pt.lower_time * (1 - 1e-9));
  }
  const fs::study_result back = fs::study_from_json(s.to_json());
  EXPECT_EQ(back.to_json(), s.to_json());
  EXPECT_EQ(back.prediction.model.scheduler, fs::replay_scheduler::os_threads);
  EXPECT_TRUE(contains(s.to_text(), "predicted TP: OS threads")) << s.to_text();
  EXPECT_TRUE(contains(fs::to_html(s), "predicted TP: OS threads"));
  EXPECT_FALSE(fs::prediction_svg(s).empty());
}

TEST(StudyPrediction, WithoutWarmUpOneMoreRunIsRecorded) {
  counted_workload w;
  const fs::study_result s = fs::run_study("tree", w.make(), small(0));
  EXPECT_EQ(w.parallel_runs.load(), 2u * 2 + 1);
  EXPECT_FALSE(s.prediction.empty()) << s.prediction.note;
}

TEST(StudyPrediction, NoneWhenNotAskedFor) {
  counted_workload w;
  fs::study_options o = small(1);
  o.predict_up_to = 0;
  const fs::study_result s = fs::run_study("tree", w.make(), o);
  EXPECT_TRUE(s.prediction.empty());
  EXPECT_TRUE(contains(s.prediction.note, "predict_up_to is 0"));
  EXPECT_TRUE(contains(s.to_text(), "none: not asked for"));
  EXPECT_TRUE(fs::prediction_svg(s).empty());
  for (const auto& m : s.warnings) EXPECT_FALSE(contains(m, "prediction")) << m;
  EXPECT_EQ(fs::study_from_json(s.to_json()).to_json(), s.to_json());
}

// A file whose stated error is not what its runs and predicted time give is
// refused; one without "prediction" (older) reads with none.
TEST(StudyPrediction, FilesAreCheckedAndOlderOnesRead) {
  counted_workload w;
  const fs::study_result s = fs::run_study("tree", w.make(), small(1));
  ASSERT_FALSE(s.prediction.empty());
  std::string j = s.to_json();
  const std::size_t at = j.find("\"error\": ", j.find("\"prediction\""));
  ASSERT_NE(at, std::string::npos);
  const std::size_t end = j.find_first_of(",\n", at);
  std::string bad = j;
  bad.replace(at, end - at, "\"error\": 0.5");
  try {
    fs::study_from_json(bad);
    ADD_FAILURE() << "an inconsistent error was accepted";
  } catch (const fs::error& e) {
    EXPECT_TRUE(contains(e.what(), "prediction.points[0].error")) << e.what();
  }
  const std::size_t from = j.find("  \"prediction\": {");
  const std::size_t to = j.find("  \"warnings\"", from);
  std::string old = j;
  old.erase(from, to - from);
  const fs::study_result back = fs::study_from_json(old);
  EXPECT_TRUE(back.prediction.empty());
  EXPECT_TRUE(back.prediction.note.empty());
  EXPECT_FALSE(contains(back.to_text(), "6) Predicted"));
}

}  // namespace
