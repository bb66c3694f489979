// file_calls.hpp — the system calls that change a file's page-cache state
// (posix_fadvise, sync_file_range, fsync), replaceable so tests can play a
// device whose writeback fails or a kernel that queues less than asked.
#pragma once
#include "server_free.hpp"

#include <sys/types.h>

namespace pg_cachectl {

struct FileCalls {
    // As posix_fadvise(3): returns 0 or an error number (errno is not set).
    int (*fadvise)(int fd, off_t offset, off_t length, int advice) = nullptr;
    // As sync_file_range(2) and fsync(2): 0, or -1 with errno set.
    int (*sync_file_range)(int fd, off_t offset, off_t length, unsigned int flags) = nullptr;
    int (*fsync)(int fd) = nullptr;
};

// The calls in force: the real ones unless a test replaced them.
const FileCalls &file_calls();

// Replaces the calls; a member left null keeps the real call.  Returns the
// calls that were in force.  Tests only: not thread-safe against callers.
FileCalls set_file_calls(const FileCalls &calls);

} // namespace pg_cachectl
