// Probe of the machine, not of ptq: how long a cache line takes to go from one core to another and back, between
// the first two CPUs this process may run on. On a VM the answer changes as the host moves the vCPUs (this one's
// two: about 50 ns on one L3 cache, 350 on two), and with it what a second thread gains (scripts/zoo/run_zoo.py
// records it before each timed run on more than one thread).
// Usage: ptq_core_latency_bench [round trips (default 100000)]; prints {"round_trip_ns": median of 5 batches}.
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {

alignas(64) std::atomic<long> ball{0};

bool Pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  const long trips = argc > 1 ? std::atol(argv[1]) : 100000;
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (trips < 1 || sched_getaffinity(0, sizeof allowed, &allowed) != 0) return 2;
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE && cpus.size() < 2; ++c) {
    if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
  }
  if (cpus.size() < 2) {
    std::fprintf(stderr, "ptq_core_latency_bench: this process may run on one CPU only\n");
    return 1;
  }
  constexpr int kBatches = 5;
  std::thread other([&] {
    Pin(cpus[1]);
    for (long i = 0; i < kBatches * trips; ++i) {
      while (ball.load(std::memory_order_acquire) != 2 * i + 1) {
      }
      ball.store(2 * i + 2, std::memory_order_release);
    }
  });
  Pin(cpus[0]);
  std::vector<double> ns;
  for (long b = 0, i = 0; b < kBatches; ++b) {
    const auto start = std::chrono::steady_clock::now();
    for (long end = i + trips; i < end; ++i) {
      ball.store(2 * i + 1, std::memory_order_release);
      while (ball.load(std::memory_order_acquire) != 2 * i + 2) {
      }
    }
    ns.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() / trips);
  }
  other.join();
  std::sort(ns.begin(), ns.end());
  std::printf("{\"round_trip_ns\": %.1f, \"cpus\": [%d, %d]}\n", ns[kBatches / 2], cpus[0], cpus[1]);
  return 0;
}
