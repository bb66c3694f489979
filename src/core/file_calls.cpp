// file_calls.cpp — the real page-cache system calls, and their replacement.
#include "file_calls.hpp"

#include <fcntl.h>
#include <unistd.h>

namespace pg_cachectl {

namespace {

int real_fadvise(int fd, off_t offset, off_t length, int advice) {
    return ::posix_fadvise(fd, offset, length, advice);
}

int real_sync_file_range(int fd, off_t offset, off_t length, unsigned int flags) {
    return ::sync_file_range(fd, offset, length, flags);
}

int real_fsync(int fd) {
    return ::fsync(fd);
}

FileCalls in_force{&real_fadvise, &real_sync_file_range, &real_fsync};

} // namespace

const FileCalls &file_calls() {
    return in_force;
}

FileCalls set_file_calls(const FileCalls &calls) {
    FileCalls previous = in_force;
    in_force.fadvise = calls.fadvise != nullptr ? calls.fadvise : &real_fadvise;
    in_force.sync_file_range = calls.sync_file_range != nullptr ? calls.sync_file_range : &real_sync_file_range;
    in_force.fsync = calls.fsync != nullptr ? calls.fsync : &real_fsync;
    return previous;
}

} // namespace pg_cachectl
