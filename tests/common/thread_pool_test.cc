// The one pool: run_all and run_on_workers' worker index (each worker one task at a time, within
// [0, workers)), every index run once, the lowest index's exception, and a pool that never reads
// the environment (the thread count is the caller's: cli/threads.h).
#include "common/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace kbdata {
namespace {

TEST(ThreadPool, StartsTheThreadsItIsGivenWhateverTheEnvironment) {
  ::setenv("KBDATA_THREADS", "garbage", 1);
  ThreadPool pool(3);
  EXPECT_EQ(pool.threads(), 3);
  // Three tasks that wait for each other end only when three threads run them at once.
  std::atomic<int> started{0};
  run_all(&pool, 3, [&](size_t) {
    ++started;
    while (started.load() < 3) std::this_thread::yield();
  });
  EXPECT_EQ(started.load(), 3);
  ::unsetenv("KBDATA_THREADS");
}

TEST(RunOnWorkers, GivesEachWorkerOneTaskAtATimeAndEveryIndexOnce) {
  ThreadPool pool(4);
  for (const size_t workers : {size_t{1}, size_t{2}, size_t{3}, size_t{4}, size_t{9}}) {
    const size_t n = 1000;
    const size_t count = worker_count(&pool, n, workers);
    EXPECT_EQ(count, std::min<size_t>(workers, 4));
    std::vector<std::atomic<int>> busy(count);
    std::vector<std::atomic<int>> runs(n);
    std::vector<size_t> per_worker(count, 0);  // per-worker state, no lock
    std::atomic<bool> overlap{false};
    std::atomic<bool> out_of_range{false};
    run_on_workers(&pool, n, workers, [&](size_t i, size_t worker) {
      if (worker >= count) {
        out_of_range = true;
        return;
      }
      if (busy[worker].fetch_add(1) != 0) overlap = true;
      ++per_worker[worker];
      ++runs[i];
      busy[worker].fetch_sub(1);
    });
    EXPECT_FALSE(out_of_range) << workers;
    EXPECT_FALSE(overlap) << workers;
    size_t total = 0;
    for (size_t w : per_worker) total += w;
    EXPECT_EQ(total, n);
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(runs[i].load(), 1) << i;
  }
}

TEST(RunOnWorkers, UsesEveryWorkerItIsGiven) {
  ThreadPool pool(3);
  // Three workers that wait for each other: done only when all three run at once.
  std::atomic<int> arrived{0};
  std::mutex mutex;
  std::set<size_t> seen;
  run_on_workers(&pool, 3, 3, [&](size_t, size_t worker) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      seen.insert(worker);
    }
    ++arrived;
    while (arrived.load() < 3) std::this_thread::yield();
  });
  EXPECT_EQ(seen, (std::set<size_t>{0, 1, 2}));
}

TEST(RunOnWorkers, WithoutAPoolRunsInOrderOnTheCallingThreadAsWorkerZero) {
  std::vector<size_t> order;
  const std::thread::id caller = std::this_thread::get_id();
  run_on_workers(nullptr, 5, 8, [&](size_t i, size_t worker) {
    EXPECT_EQ(worker, 0u);
    EXPECT_EQ(std::this_thread::get_id(), caller);
    order.push_back(i);
  });
  EXPECT_EQ(order, (std::vector<size_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(worker_count(nullptr, 5, 8), 1u);
  run_on_workers(nullptr, 0, 3, [&](size_t, size_t) { ADD_FAILURE() << "no index to run"; });
}

TEST(RunOnWorkers, RethrowsTheLowestIndexThatThrewAndStartsNoMore) {
  ThreadPool pool(3);
  for (int round = 0; round < 20; ++round) {
    std::atomic<size_t> started{0};
    try {
      run_on_workers(&pool, 10'000, 3, [&](size_t i, size_t) {
        ++started;
        if (i == 40 || i == 41 || i == 500) throw std::runtime_error(std::to_string(i));
      });
      ADD_FAILURE() << "no exception";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "40");
    }
    EXPECT_LT(started.load(), 10'000u);  // the indices after the failure were never started
  }
}

}  // namespace
}  // namespace kbdata
