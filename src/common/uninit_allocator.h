// An allocator whose value-initialisation is default-initialisation: a std::vector<uint8_t,
// UninitAllocator<uint8_t>> grown with resize(n) leaves the new bytes unwritten instead of
// zero-filling them. For buffers that are always written before they are read (decoded values,
// file windows): zero-filling them first costs a pass over memory that the writer makes anyway.
// A block of kHugeAdviceBytes or more (a value buffer of huge strings) is backed by transparent
// huge pages (advise_huge_pages): it is written whole, and faulting it in 4 KiB at a time cost more
// than the copy itself.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/malloc_tuning.h"

namespace kbdata {

template <typename T>
class UninitAllocator : public std::allocator<T> {
 public:
  using value_type = T;
  template <typename U>
  struct rebind {
    using other = UninitAllocator<U>;
  };

  UninitAllocator() noexcept = default;
  template <typename U>
  UninitAllocator(const UninitAllocator<U>&) noexcept {}  // NOLINT: converting, as std::allocator

  T* allocate(size_t n) {
    T* data = std::allocator<T>::allocate(n);
    if (n * sizeof(T) >= kHugeAdviceBytes) advise_huge_pages(data, n * sizeof(T));
    return data;
  }

  // resize(n) and the sized constructor: leave trivial values uninitialised.
  template <typename U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

template <typename T, typename U>
bool operator==(const UninitAllocator<T>&, const UninitAllocator<U>&) noexcept {
  return true;
}

// Resizes `v` to n elements, leaving new ones unwritten. On reallocation the old elements are
// copied with one memcpy: the vector's own growth would copy them one by one through the
// allocator's construct() (this allocator is not std::allocator, so the library cannot take its
// bulk path), a byte-by-byte loop over every byte of a growing value buffer. T must be trivially
// copyable.
template <typename T>
void resize_uninit(std::vector<T, UninitAllocator<T>>& v, size_t n) {
  static_assert(std::is_trivially_copyable_v<T>);
  if (n > v.capacity()) {
    std::vector<T, UninitAllocator<T>> grown;
    grown.reserve(std::max(n, 2 * v.capacity()));
    grown.resize(n);
    if (!v.empty()) std::memcpy(grown.data(), v.data(), v.size() * sizeof(T));
    v.swap(grown);
  } else {
    v.resize(n);
  }
}

// Appends the n elements at `from` to `v` with resize_uninit() and one memcpy.
template <typename T>
void append_uninit(std::vector<T, UninitAllocator<T>>& v, const T* from, size_t n) {
  if (n == 0) return;
  const size_t old = v.size();
  resize_uninit(v, old + n);
  std::memcpy(v.data() + old, from, n * sizeof(T));
}

// Element-wise equality with an ordinary vector (found by argument-dependent lookup).
template <typename T>
bool operator==(const std::vector<T, UninitAllocator<T>>& a, const std::vector<T>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

}  // namespace kbdata
