// A fixed pool of worker threads, and the thread count kbdata's commands use.
//
// Tasks run in the order they were submitted (first in, first out): a scan that submits its work
// units in file order can rely on unit k being started before unit k + 1.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
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

// The threads a command uses: `requested` when given (at least 1), else $KBDATA_THREADS when it is
// set, else the machine's cores. Throws UsageError for a $KBDATA_THREADS that is not an integer
// from 1 to kMaxThreads.
inline constexpr int kMaxThreads = 256;
[[nodiscard]] int command_threads(std::optional<int> requested);

}  // namespace kbdata
