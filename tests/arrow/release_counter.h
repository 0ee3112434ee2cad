// Test-only: counts every call of the release callbacks of exported Arrow structures. watch()
// puts a counting callback in place of each structure's own (children and list items too,
// which their parent's release must release), remembering the producer's by the structure's
// private_data, which the interface lets a consumer move but never change. The counting callback
// calls the producer's, then checks that it marked the structure released. A consumer may release
// from any thread (DuckDB does): the counts are kept under a lock.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "arrow/c_data.h"

namespace kbdata::testing {

class ReleaseCounter {
 public:
  ReleaseCounter() { current() = this; }
  ~ReleaseCounter() { current() = nullptr; }
  ReleaseCounter(const ReleaseCounter&) = delete;
  ReleaseCounter& operator=(const ReleaseCounter&) = delete;

  void watch(ArrowSchema* schema) {
    for (int64_t i = 0; i < schema->n_children; ++i) watch(schema->children[i]);
    Record& r = add(schema->private_data);
    r.release_schema = schema->release;
    schema->release = &counting_schema_release;
  }
  void watch(ArrowArray* array) {
    for (int64_t i = 0; i < array->n_children; ++i) watch(array->children[i]);
    Record& r = add(array->private_data);
    r.release_array = array->release;
    array->release = &counting_array_release;
  }

  // Structures watched, and those whose release ran exactly once and marked them released.
  [[nodiscard]] size_t watched() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return records_.size();
  }
  [[nodiscard]] size_t released_once() const {
    std::lock_guard<std::mutex> lock(mutex_);
    size_t n = 0;
    for (const Record& r : records_) n += r.calls == 1 && r.marked_released ? 1 : 0;
    return n;
  }
  // For a failure's message: how many structures' release ran 0, 1, 2... times.
  [[nodiscard]] std::string summary() const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::map<int, int> by_calls;
    for (const Record& r : records_) ++by_calls[r.calls];
    std::string text;
    for (const auto& [calls, n] : by_calls) {
      text += std::to_string(n) + " released " + std::to_string(calls) + " time(s); ";
    }
    return text;
  }
  // Problems seen: a release called on a structure not watched or already released.
  [[nodiscard]] const std::vector<std::string>& problems() const { return problems_; }

 private:
  struct Record {
    void (*release_schema)(ArrowSchema*) = nullptr;
    void (*release_array)(ArrowArray*) = nullptr;
    int calls = 0;
    bool marked_released = false;
  };

  static ReleaseCounter*& current() {
    static ReleaseCounter* counter = nullptr;
    return counter;
  }

  Record& add(void* private_data) {
    std::lock_guard<std::mutex> lock(mutex_);
    records_.emplace_back();
    live_[private_data] = records_.size() - 1;
    return records_.back();
  }

  // The record of the live structure with this private_data (its release is being called).
  Record* take(void* private_data) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = live_.find(private_data);
    if (it == live_.end()) {
      problems_.push_back("release of a structure not watched or already released");
      return nullptr;
    }
    Record* r = &records_[it->second];
    live_.erase(it);
    ++r->calls;
    return r;
  }

  static void counting_schema_release(ArrowSchema* schema) {
    Record* r = current()->take(schema->private_data);
    if (r == nullptr) return;
    r->release_schema(schema);
    r->marked_released = schema->release == nullptr;
  }
  static void counting_array_release(ArrowArray* array) {
    Record* r = current()->take(array->private_data);
    if (r == nullptr) return;
    r->release_array(array);
    r->marked_released = array->release == nullptr;
  }

  mutable std::mutex mutex_;
  std::deque<Record> records_;  // only grows, and a deque's elements never move
  std::map<void*, size_t> live_;
  std::vector<std::string> problems_;
};

}  // namespace kbdata::testing
