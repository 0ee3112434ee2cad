// How kbdata's programs set up glibc's malloc for reading Parquet (kbdata, bench programs).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace kbdata {

// glibc's malloc serves blocks from 128 KiB up with fresh mmap()ed pages and unmaps them when
// freed, so every page buffer, file window and dictionary that a column reader allocates is
// page-faulted in anew (a few µs a page on a virtual machine; a third of a short analysis). After
// this call, blocks below 64 MiB come from the heap and freed ones are reused; the heap gives
// memory back to the system when more than 64 MiB lies free at its top. Larger blocks are still
// mapped. The heap grows 32 MiB at a time, and its first 32 MiB are backed by transparent huge
// pages (as advise_huge_pages): a short command's buffers are faulted in 2 MiB at a time, a few
// hundred faults fewer per MiB (`kbdata top` on one file: 3,900 faults -> 1,070, 2.5 ms of 20).
// Under an address-space limit (RLIMIT_AS, ulimit -v) none of that: every thread shares one arena
// (M_ARENA_MAX 1) and the heap grows by what it needs, so that reservations do not count against
// the limit. Call once at the start of main().
void tune_malloc_for_readers();

// Asks the kernel to back [data, data + bytes) with transparent huge pages where it lies on whole
// 2 MiB pages (madvise MADV_HUGEPAGE; nothing happens where the system does not offer them): a
// large buffer filled once is then faulted in 2 MiB at a time rather than 4 KiB, a few hundred
// times fewer faults. For buffers of several MiB that are written whole.
void advise_huge_pages(void* data, size_t bytes);

// Blocks from this size up are mapped afresh by malloc (tune_malloc_for_readers) and buffers of
// this size that kbdata fills whole ask for huge pages: a page of two 1 GiB strings was
// page-faulted in 4 KiB at a time through every copy, two thirds of a `convert` of it.
inline constexpr size_t kHugeAdviceBytes = size_t{64} << 20;

// Makes room in `out` for `extra` more bytes about to be written whole: once the total reaches
// kHugeAdviceBytes, the new storage (doubling, as the vector would) asks for huge pages before
// anything faults it in. Smaller growth is left to the vector.
inline void reserve_for_append(std::vector<uint8_t>& out, size_t extra) {
  const size_t needed = out.size() + extra;
  if (needed <= out.capacity() || needed < kHugeAdviceBytes) return;
  out.reserve(std::max(needed, 2 * out.capacity()));
  advise_huge_pages(out.data(), out.capacity());
}

}  // namespace kbdata
