// A fixed pool of worker threads: the one pool of kbdata (scans, the writer's compression, the
// loader, dedup's passes, export's connections). How many threads is the caller's to say (the
// command line decides it: cli/threads.h); the pool never reads the environment.
//
// Tasks run in the order they were submitted (first in, first out): a scan that submits its work
// units in file order can rely on unit k being started before unit k + 1.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace kbdata {

class ThreadPool {
 public:
  // Starts `threads` workers (at least 1). Throws ResourceError, with none left running, when the
  // system refuses one.
  explicit ThreadPool(int threads);
  // Runs the tasks still queued, then joins the workers.
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Queues `task`. A task must not throw: it catches what it must report and hands it over itself
  // (run_all() does this for its tasks).
  void submit(std::function<void()> task);

  [[nodiscard]] int threads() const { return static_cast<int>(threads_.size()); }

 private:
  void loop();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> tasks_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;  // last: the workers start after the members they use
};

// Runs task(i) for every i in [0, n) on `pool`, or on the calling thread one after another when
// `pool` is null, and returns when every task has ended. If tasks threw, the exception of the
// lowest i is rethrown (the same one whatever the threads), after all tasks ended.
void run_all(ThreadPool* pool, size_t n, const std::function<void(size_t)>& task);

// Runs task(i, worker) for every i in [0, n) on at most `workers` workers of `pool` (on the calling
// thread alone, worker 0, when `pool` is null or one worker would do), and returns when every task
// has ended. `worker` is in [0, min(workers, pool's threads, n)) and one worker runs one task at a
// time, so that state kept per worker (buffers, a database connection) needs no lock; the indices
// are taken in increasing order. Once a task threw no further index is started, and the exception
// of the lowest i that threw is rethrown after the tasks running ended (the same one whatever the
// threads, for tasks whose throwing depends on i alone).
void run_on_workers(ThreadPool* pool, size_t n, size_t workers,
                    const std::function<void(size_t i, size_t worker)>& task);

// How many workers run_on_workers uses for n tasks.
[[nodiscard]] size_t worker_count(const ThreadPool* pool, size_t n, size_t workers);

}  // namespace kbdata
