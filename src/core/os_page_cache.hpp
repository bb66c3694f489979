// os_page_cache.hpp — measuring how much of a file sits in the kernel page
// cache: cachestat(2) when the kernel has it and it can be trusted, mincore(2)
// over bounded mmap windows otherwise.
#pragma once
#include "server_free.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace pg_cachectl {

// Page counts of a byte range.  Only cachestat knows the last four.
struct CacheCounts {
    std::int64_t os_pages = 0;
    std::int64_t os_dirty_pages = 0;
    std::int64_t os_writeback_pages = 0;
    std::int64_t os_evicted_pages = 0;
    std::int64_t os_recently_evicted_pages = 0;

    CacheCounts &operator+=(const CacheCounts &other);
};

enum class CachestatSupport { available, missing, filtered };

// Calls cachestat(2) on [offset, offset + length) of fd.  Returns nothing
// when the call failed with ENOSYS or EPERM (the caller decides what that
// means); throws SystemError for any other failure.
std::optional<CacheCounts> cachestat_range(int fd, std::int64_t offset, std::int64_t length, int *failure_errno);

// The cachestat system call itself (returns 0, or -1 with errno set).  Tests
// replace it to play a kernel without cachestat, or one behind a seccomp
// filter; set_cachestat_call(nullptr) restores the real one.  Returns the
// call that was in place.
using CachestatCall = long (*)(int fd, const void *range, void *stat);
CachestatCall set_cachestat_call(CachestatCall call);

// The mincore system call itself, replaceable the same way: tests record
// which measurements reached it (a wait must; a report need not).
using MincoreCall = int (*)(void *address, std::size_t length, unsigned char *vector);
MincoreCall set_mincore_call(MincoreCall call);

// Forgets the remembered probe result (tests only: the server probes once).
void forget_cachestat_support();

// What cachestat can do here, probed on a file the caller owns: ENOSYS means
// the kernel lacks it, EPERM on one's own file means a seccomp filter.
CachestatSupport probe_cachestat_on(int fd);

// The process-wide probe result, once remembered (see bridge_common.h).
std::optional<CachestatSupport> remembered_cachestat_support();
void remember_cachestat_support(CachestatSupport support);

// True when fd lives on a filesystem where cachestat reports 0 cached pages
// although pages are cached (overlayfs).
bool cachestat_unreliable_on(int fd);

// Counts resident pages of [offset, offset + length) with mmap + mincore.
// length may be 0.  offset must be page aligned.
std::int64_t mincore_resident_pages(int fd, std::int64_t offset, std::int64_t length);

// The residency of each page of [offset, offset + length) with mmap +
// mincore, into `pages` (resized; bit 0 of each byte set when resident).
void mincore_page_vector(int fd, std::int64_t offset, std::int64_t length, std::vector<unsigned char> &pages);

} // namespace pg_cachectl
