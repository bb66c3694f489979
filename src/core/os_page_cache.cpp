// os_page_cache.cpp — the OS page-cache engines: cachestat(2) and mincore(2).
#include "os_page_cache.hpp"

#include "core_errors.hpp"
#include "posix_handles.hpp"
#include "segment_math.hpp"

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <vector>

// glibc has no wrapper (and 2.36 not even the number): cachestat is 451 in
// the generic syscall table shared by x86_64 and arm64.
#if !defined(SYS_cachestat) && (defined(__x86_64__) || defined(__aarch64__))
#define SYS_cachestat 451
#endif

namespace pg_cachectl {

namespace {

// The kernel's ABI (include/uapi/linux/mman.h), declared here because
// Debian 12's kernel headers predate it.
struct KernelCachestatRange {
    std::uint64_t off;
    std::uint64_t len;
};

struct KernelCachestat {
    std::uint64_t nr_cache;
    std::uint64_t nr_dirty;
    std::uint64_t nr_writeback;
    std::uint64_t nr_evicted;
    std::uint64_t nr_recently_evicted;
};

constexpr long overlayfs_magic = 0x794c7630;

// 0 = not probed; otherwise 1 + CachestatSupport.
std::atomic<int> remembered_support{0};

long real_cachestat(int fd, const void *range, void *stat) {
#ifdef SYS_cachestat
    return ::syscall(SYS_cachestat, fd, range, stat, 0);
#else
    (void)fd;
    (void)range;
    (void)stat;
    errno = ENOSYS;
    return -1;
#endif
}

std::atomic<CachestatCall> cachestat_call{&real_cachestat};

int real_mincore(void *address, std::size_t length, unsigned char *vector) {
    return ::mincore(address, length, vector);
}

std::atomic<MincoreCall> mincore_call{&real_mincore};

} // namespace

CacheCounts &CacheCounts::operator+=(const CacheCounts &other) {
    os_pages += other.os_pages;
    os_dirty_pages += other.os_dirty_pages;
    os_writeback_pages += other.os_writeback_pages;
    os_evicted_pages += other.os_evicted_pages;
    os_recently_evicted_pages += other.os_recently_evicted_pages;
    return *this;
}

std::optional<CacheCounts> cachestat_range(int fd, std::int64_t offset, std::int64_t length, int *failure_errno) {
    if (failure_errno != nullptr)
        *failure_errno = 0;
    if (offset < 0 || length < 0)
        throw InvalidArgument("cachestat range must not be negative");
    if (length == 0)
        return CacheCounts{}; // the kernel reads len 0 as "to the end of the file"
    KernelCachestatRange range{static_cast<std::uint64_t>(offset), static_cast<std::uint64_t>(length)};
    KernelCachestat stat{};
    if (cachestat_call.load()(fd, &range, &stat) == 0) {
        CacheCounts counts;
        counts.os_pages = static_cast<std::int64_t>(stat.nr_cache);
        counts.os_dirty_pages = static_cast<std::int64_t>(stat.nr_dirty);
        counts.os_writeback_pages = static_cast<std::int64_t>(stat.nr_writeback);
        counts.os_evicted_pages = static_cast<std::int64_t>(stat.nr_evicted);
        counts.os_recently_evicted_pages = static_cast<std::int64_t>(stat.nr_recently_evicted);
        return counts;
    }
    int error_number = errno;
    if (error_number == ENOSYS || error_number == EPERM) {
        if (failure_errno != nullptr)
            *failure_errno = error_number;
        return std::nullopt;
    }
    throw SystemError(error_number, SystemCall::cachestat);
}

CachestatCall set_cachestat_call(CachestatCall call) {
    return cachestat_call.exchange(call != nullptr ? call : &real_cachestat);
}

MincoreCall set_mincore_call(MincoreCall call) {
    return mincore_call.exchange(call != nullptr ? call : &real_mincore);
}

void forget_cachestat_support() {
    remembered_support.store(0);
}

CachestatSupport probe_cachestat_on(int fd) {
    int failure_errno = 0;
    if (cachestat_range(fd, 0, 1, &failure_errno))
        return CachestatSupport::available;
    return failure_errno == ENOSYS ? CachestatSupport::missing : CachestatSupport::filtered;
}

std::optional<CachestatSupport> remembered_cachestat_support() {
    int value = remembered_support.load(std::memory_order_relaxed);
    if (value == 0)
        return std::nullopt;
    return static_cast<CachestatSupport>(value - 1);
}

void remember_cachestat_support(CachestatSupport support) {
    remembered_support.store(static_cast<int>(support) + 1, std::memory_order_relaxed);
}

bool cachestat_unreliable_on(int fd) {
    struct statfs info {};
    if (::fstatfs(fd, &info) != 0)
        throw SystemError(errno, SystemCall::statfs);
    return static_cast<long>(info.f_type) == overlayfs_magic;
}

void mincore_page_vector(int fd, std::int64_t offset, std::int64_t length, std::vector<unsigned char> &pages) {
    const std::int64_t page_size = os_page_size();
    if (offset < 0 || length < 0 || offset % page_size != 0)
        throw InvalidArgument("mincore window must be page aligned and not negative");
    pages.assign(static_cast<std::size_t>(pages_spanned(length, page_size)), 0);
    if (length == 0)
        return;
    FileMapping mapping(fd, static_cast<std::size_t>(offset), static_cast<std::size_t>(length));
    if (mincore_call.load()(mapping.address(), mapping.length(), pages.data()) != 0)
        throw SystemError(errno, SystemCall::mincore);
}

std::int64_t mincore_resident_pages(int fd, std::int64_t offset, std::int64_t length) {
    std::vector<unsigned char> resident;
    mincore_page_vector(fd, offset, length, resident);
    std::int64_t count = 0;
    for (unsigned char page : resident)
        count += page & 1;
    return count;
}

} // namespace pg_cachectl
