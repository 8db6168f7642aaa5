// A background thread that folds observed tensors into calibration statistics, overlapping inference.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "calibrate/calibrator.h"
#include "runtime/tensor.h"

namespace ptq {

// One unit of work: fold `value` into `target`.
struct StatsJob {
  CalibratedTensor* target;
  Tensor value;
};

// What CollectStatistics does with an observed float activation, inline or on the worker:
// target->histogram.Add(values) and MergeObservedShape(&target->shape, shape).
void FoldObservation(CalibratedTensor* target, const Tensor& value);

// A single consumer thread behind a hand-over queue bounded by bytes.
//
// Contract:
//  - Push(target, value) copies value's floats into a buffer of the worker's own (recycled: after the
//    first batches no allocation, no page fault) and queues the fold of that copy into target. Why a
//    copy although the session never writes into a tensor it produced (kernel outputs are fresh
//    buffers, inputs are read-only, so sharing `value` would be safe): keeping the session's buffers
//    alive past their last use makes its allocator hand out fresh, cold memory for the next kernel
//    outputs (page faults, cache misses), which cost the producer more than the memcpy (measured: see
//    the calibration bench notes in stats_worker.cc). REQUIRES: value is float.
//  - Jobs are run in Push order, one at a time, on the worker thread only, so `fold` needs no locking
//    as long as nothing else touches a target between the first Push and Finish (or destruction).
//  - Hand-over: pushed jobs wait on the producer's side (no lock per tensor) until Publish, or until
//    min(256 KiB, max_bytes / 16) waits. A sleeping worker is woken once that much is queued (or when
//    Push must wait for a buffer, and by Finish): wake-ups are system calls, so they are batched, but
//    little enough is queued that few buffers exist (each is new memory, paid in page faults once).
//    Call Publish at natural boundaries (CollectStatistics: after each batch).
//  - Memory: the worker's buffers (queued, being folded, or idle for reuse) total <= max_bytes; Push
//    frees idle buffers, then blocks, while a new one would exceed that. A tensor larger than
//    max_bytes on its own is admitted when no other buffer exists (so it cannot deadlock).
//  - Errors: the first exception thrown by `fold` stops the worker (queued and later jobs are dropped,
//    not run) and is rethrown by every later Push and Publish and by Finish.
//  - Push, Publish and Finish are for one producer thread; Push after Finish is an internal error.
//  - Finish hands over what waits, waits until every pushed job is folded, joins the thread and
//    rethrows a worker exception. The destructor joins too (dropping the jobs not started, never
//    throwing), so the thread is joined on every path, also when the producer throws. After Finish or
//    destruction the targets may be read.
class StatsWorker {
 public:
  using Fold = std::function<void(CalibratedTensor* target, const Tensor& value)>;
  static constexpr size_t kDefaultMaxBytes = size_t{64} << 20;

  explicit StatsWorker(Fold fold = FoldObservation, size_t max_bytes = kDefaultMaxBytes);
  ~StatsWorker();
  StatsWorker(const StatsWorker&) = delete;
  StatsWorker& operator=(const StatsWorker&) = delete;

  void Push(CalibratedTensor* target, const Tensor& value);
  void Publish();
  void Finish();

  // The most bytes of buffers held at once so far (for tests of the bound).
  size_t peak_bytes() const { return peak_bytes_; }

 private:
  void Loop();
  void RethrowIfFailed(std::unique_lock<std::mutex>& lock);
  void HandOverLocked();  // moves pending_ to queue_; sets wake_ when the sleeping worker should wake
  void WaitForDone();     // hands over, wakes the worker, waits until it returns buffers (or fails)
  void Recycle(std::vector<Tensor>* done);  // folded buffers to the pool
  Tensor TakeBuffer(int64_t size);

  const Fold fold_;
  const size_t max_bytes_;
  // The producer's side (producer thread only).
  std::vector<StatsJob> pending_;
  size_t pending_bytes_ = 0;
  std::map<int64_t, std::vector<Tensor>> pool_;  // idle buffers by element count
  size_t pool_bytes_ = 0;
  size_t held_bytes_ = 0;  // buffers pending, queued, being folded or folded and not yet recycled
  size_t peak_bytes_ = 0;
  bool finished_ = false;
  // Shared, under mu_.
  std::mutex mu_;
  std::condition_variable work_ready_;  // the worker waits for jobs or stop
  std::condition_variable done_ready_;  // a waiting Push waits for folded buffers or an error
  std::vector<StatsJob> queue_;
  size_t queued_bytes_ = 0;             // of queue_
  std::vector<Tensor> done_;            // folded (or dropped) buffers, for the producer to recycle
  bool stop_ = false;
  bool worker_waiting_ = false;
  bool producer_waiting_ = false;
  bool wake_ = false;                   // set by HandOverLocked: notify work_ready_ after unlocking
  std::exception_ptr error_;
  std::atomic<bool> failed_{false};     // error_ is set (checked by Push without the lock)
  std::atomic<bool> abandon_{false};    // destructor: skip the jobs not started
  std::thread thread_;
};

}  // namespace ptq
