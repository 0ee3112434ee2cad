#include "common/thread_pool.h"

#include <charconv>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>
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

int command_threads(std::optional<int> requested) {
  if (requested) return *requested < 1 ? 1 : *requested;
  if (const char* env = std::getenv("KBDATA_THREADS"); env != nullptr && *env != '\0') {
    const std::string_view text(env);
    int value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || value < 1 || value > kMaxThreads) {
      throw UsageError("KBDATA_THREADS='" + std::string(text) +
                       "' is not a number of threads from 1 to " + std::to_string(kMaxThreads));
    }
    return value;
  }
  const unsigned cores = std::thread::hardware_concurrency();
  return cores == 0 ? 1 : static_cast<int>(cores);
}

}  // namespace kbdata
