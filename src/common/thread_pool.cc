#include "common/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <string>
#include <system_error>

#include "common/error.h"

namespace kbdata {

ThreadPool::ThreadPool(int threads) {
  const int n = threads < 1 ? 1 : threads;
  threads_.reserve(static_cast<size_t>(n));
  try {
    for (int i = 0; i < n; ++i) threads_.emplace_back([this] { loop(); });
  } catch (const std::system_error& e) {
    // The system refused a thread (each reserves a stack of the address space): the ones started
    // are stopped and joined, never left running for std::terminate.
    const size_t started = threads_.size();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : threads_) t.join();
    throw ResourceError("cannot start thread " + std::to_string(started + 1) + " of " +
                        std::to_string(n) + ": " + e.code().message());
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void ThreadPool::submit(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    tasks_.push_back(std::move(task));
  }
  wake_.notify_one();
}

void ThreadPool::loop() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
      if (tasks_.empty()) return;  // stopping, and nothing left to run
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task();
  }
}

void run_all(ThreadPool* pool, size_t n, const std::function<void(size_t)>& task) {
  std::vector<std::exception_ptr> errors(n);
  if (pool == nullptr || n <= 1) {
    for (size_t i = 0; i < n; ++i) {
      try {
        task(i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  } else {
    std::mutex mutex;
    std::condition_variable done;
    size_t left = n;
    for (size_t i = 0; i < n; ++i) {
      pool->submit([&, i] {
        try {
          task(i);
        } catch (...) {
          errors[i] = std::current_exception();
        }
        std::lock_guard<std::mutex> lock(mutex);
        if (--left == 0) done.notify_one();
      });
    }
    std::unique_lock<std::mutex> lock(mutex);
    done.wait(lock, [&] { return left == 0; });
  }
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

size_t worker_count(const ThreadPool* pool, size_t n, size_t workers) {
  const size_t threads = pool == nullptr ? 1 : static_cast<size_t>(pool->threads());
  return std::max<size_t>(1, std::min({workers, threads, n}));
}

void run_on_workers(ThreadPool* pool, size_t n, size_t workers,
                    const std::function<void(size_t i, size_t worker)>& task) {
  const size_t count = worker_count(pool, n, workers);
  std::atomic<size_t> next{0};
  std::mutex failure_mutex;
  size_t failed_at = n;  // the lowest index that threw
  std::exception_ptr failure;
  // One task per worker, each taking the next index until none is left or one has failed.
  run_all(count > 1 ? pool : nullptr, count, [&](size_t worker) {
    for (size_t i = next.fetch_add(1); i < n; i = next.fetch_add(1)) {
      try {
        task(i, worker);
      } catch (...) {
        std::lock_guard<std::mutex> lock(failure_mutex);
        if (i < failed_at) {
          failed_at = i;
          failure = std::current_exception();
        }
        next.store(n);
        return;
      }
    }
  });
  if (failure) std::rethrow_exception(failure);
}

}  // namespace kbdata
