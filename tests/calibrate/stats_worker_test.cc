// Tests of the background statistics worker: same table as inline, bounded memory, errors, joining.
#include "calibrate/stats_worker.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "calibrate/calibration_table.h"
#include "calibrate/sample_reader.h"

namespace ptq {
namespace {

const std::string kVit = std::string(PTQ_SOURCE_DIR) + "/tests/data/digits_vit/digits_vit_opset13.onnx";
const std::string kCalib = std::string(PTQ_SOURCE_DIR) + "/tests/data/digits_vit/calib";

std::string TableDump(const Graph& g, const CalibrationOptions& o, int64_t batch_size, const CollectOptions& collect) {
  SampleOptions so;
  so.batch_size = batch_size;
  SampleReader reader = SampleReader::Open(g, kCalib, so);
  CalibrationResult r = CollectStatistics(g, reader, o, nullptr, collect);
  ChooseQuantization(g, o, &r);
  TableProvenance p;
  p.method = o.method;
  p.percentile = o.percentile;
  return CalibrationTableToJson(r, p).dump(1);
}

TEST(StatsWorker, BackgroundTableIsByteIdenticalToInline) {
  const Graph g = LoadGraph(kVit);
  for (const char* method : {"percentile", "entropy"}) {
    CalibrationOptions o;
    o.method = method;
    for (int64_t batch : {1, 8}) {
      CollectOptions inline_stats;
      const std::string expected = TableDump(g, o, batch, inline_stats);
      CollectOptions background;
      background.background = true;
      EXPECT_EQ(TableDump(g, o, batch, background), expected) << method << " batch " << batch;
      background.queue_bytes = 1;  // every Push waits for the worker to go idle
      EXPECT_EQ(TableDump(g, o, batch, background), expected) << method << " batch " << batch << ", 1-byte queue";
    }
  }
}

Tensor Floats(int64_t n, float v) { return Tensor::FromVector<float>({n}, std::vector<float>(static_cast<size_t>(n), v)); }

TEST(StatsWorker, FoldsEveryJobInOrderWithinTheByteBound) {
  std::vector<float> seen;
  StatsWorker w(
      [&](CalibratedTensor* t, const Tensor& v) {
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        seen.push_back(v.data<float>()[0]);
        FoldObservation(t, v);
      },
      4 * 1024);
  CalibratedTensor t;
  for (int i = 0; i < 50; ++i) w.Push(&t, Floats(256, static_cast<float>(i)));  // 1 KiB each
  w.Push(&t, Floats(4096, 50.0f));  // 16 KiB: over the bound alone, admitted once the queue is empty
  w.Finish();
  ASSERT_EQ(seen.size(), 51u);
  for (int i = 0; i <= 50; ++i) EXPECT_EQ(seen[static_cast<size_t>(i)], static_cast<float>(i));
  EXPECT_EQ(t.histogram.count(), 50u * 256u + 4096u);
  EXPECT_EQ(t.shape, Shape{4096});
  EXPECT_EQ(w.peak_bytes(), 16u * 1024u);
}

TEST(StatsWorker, HeldBytesStayWithinTheBoundWhileTheWorkerIsSlow) {
  StatsWorker w([](CalibratedTensor*, const Tensor&) { std::this_thread::sleep_for(std::chrono::microseconds(100)); },
                3 * 1024);
  CalibratedTensor t;
  for (int i = 0; i < 100; ++i) w.Push(&t, Floats(256, 1.0f));
  w.Finish();
  EXPECT_LE(w.peak_bytes(), 3u * 1024u);
  EXPECT_GE(w.peak_bytes(), 2u * 1024u);
}

TEST(StatsWorker, AnExceptionInTheWorkerIsRethrownByPushPublishOrFinish) {
  std::atomic<int> folded{0};
  StatsWorker w(
      [&](CalibratedTensor*, const Tensor& v) {
        if (v.data<float>()[0] == 3.0f) throw std::runtime_error("fold failed");
        ++folded;
      },
      256);  // small: every Publish wakes the worker
  CalibratedTensor t;
  bool thrown = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);  // a loaded machine
  try {
    for (int i = 0; std::chrono::steady_clock::now() < deadline; ++i) {
      w.Push(&t, Floats(4, static_cast<float>(i)));
      w.Publish();
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "fold failed");
    thrown = true;
  }
  EXPECT_TRUE(thrown) << "Push went on after the worker failed";
  EXPECT_THROW(w.Finish(), std::runtime_error);
  EXPECT_EQ(folded.load(), 3);  // nothing after the failing job was folded
}

TEST(StatsWorker, FinishRethrowsAnErrorOfTheLastJob) {
  StatsWorker w([&](CalibratedTensor*, const Tensor&) { throw std::runtime_error("late"); });
  CalibratedTensor t;
  w.Push(&t, Floats(4, 0.0f));
  EXPECT_THROW(w.Finish(), std::runtime_error);
}

TEST(StatsWorker, DestructionWithoutFinishJoinsAndDropsQueuedJobs) {
  std::atomic<int> folded{0};
  CalibratedTensor t;
  try {
    StatsWorker w(
        [&](CalibratedTensor*, const Tensor&) {
          std::this_thread::sleep_for(std::chrono::milliseconds(2));
          ++folded;
        },
        4096);  // room for all 100, a wake-up after 16
    for (int i = 0; i < 100; ++i) w.Push(&t, Floats(4, 1.0f));
    w.Publish();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    throw std::runtime_error("producer failed");  // as when Session::Run throws
  } catch (const std::runtime_error&) {
  }
  const int after = folded.load();
  EXPECT_LT(after, 100);
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(folded.load(), after);  // the thread is gone
}

TEST(StatsWorker, UnpublishedJobsAreFoldedByFinish) {
  int folded = 0;
  StatsWorker w([&](CalibratedTensor*, const Tensor&) { ++folded; });
  CalibratedTensor t;
  for (int i = 0; i < 10; ++i) w.Push(&t, Floats(4, 1.0f));  // far below a quarter of the bound: no wake-up
  w.Finish();
  EXPECT_EQ(folded, 10);
}

TEST(StatsWorker, PushAfterFinishIsAnInternalError) {
  StatsWorker w;
  w.Finish();
  CalibratedTensor t;
  EXPECT_THROW(w.Push(&t, Floats(1, 1.0f)), Error);
}

}  // namespace
}  // namespace ptq
