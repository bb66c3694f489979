// posix_handles.cpp — RAII owners of file descriptors and mappings.
#include "posix_handles.hpp"

#include "core_errors.hpp"

#include <cerrno>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace pg_cachectl {

UniqueFd &UniqueFd::operator=(UniqueFd &&other) noexcept {
    if (this != &other) {
        if (fd_ >= 0)
            ::close(fd_);
        fd_ = other.release();
    }
    return *this;
}

UniqueFd::~UniqueFd() {
    if (fd_ >= 0)
        ::close(fd_);
}

int UniqueFd::release() noexcept {
    int fd = fd_;
    fd_ = -1;
    return fd;
}

UniqueFd open_read_only(const std::string &path) {
    int fd;
    do {
        fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0)
        throw SystemError(errno, SystemCall::open, path);
    return UniqueFd(fd);
}

namespace {

FileKind file_kind(mode_t mode) {
    if (S_ISDIR(mode))
        return FileKind::directory;
    if (S_ISFIFO(mode))
        return FileKind::fifo;
    if (S_ISCHR(mode))
        return FileKind::character_device;
    if (S_ISBLK(mode))
        return FileKind::block_device;
    if (S_ISSOCK(mode))
        return FileKind::socket;
    if (S_ISLNK(mode))
        return FileKind::symbolic_link;
    return FileKind::unknown;
}

} // namespace

void check_relation_file(const std::string &path, const struct stat &file_status) {
    if (!S_ISREG(file_status.st_mode))
        throw UnsafeFile(path, file_kind(file_status.st_mode));
    // A server process never changes its effective user: ask once (a
    // database walk checks 100,000 files, and every system call counts).
    static const uid_t server_user = ::geteuid();
    if (file_status.st_uid != server_user)
        throw UnsafeFile(path, file_status.st_uid, server_user);
}

namespace {

UniqueFd open_relation_file_checked(const std::string &path, bool missing_ok, struct stat *status_out) {
    int fd;
    // O_NONBLOCK: opening a FIFO read-only waits for a writer, forever.
    // O_NOCTTY: a terminal in its place must not become ours.
    do {
        fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) {
        const int open_errno = errno;
        if (open_errno == ENOENT && missing_ok)
            return UniqueFd();
        // A unix socket cannot be opened at all (ENXIO): say what is there.
        struct stat file_status {};
        if (open_errno == ENXIO && ::stat(path.c_str(), &file_status) == 0)
            check_relation_file(path, file_status);
        throw SystemError(open_errno, SystemCall::open, path);
    }
    UniqueFd owned(fd);

    struct stat file_status {};
    if (::fstat(fd, &file_status) != 0)
        throw SystemError(errno, SystemCall::stat).on_file(path);
    check_relation_file(path, file_status);
    // O_NONBLOCK stays set: it has no effect on a regular file (open(2)),
    // which the check above made sure this is — reads, mmap, fadvise,
    // cachestat and fdatasync behave as on a blocking descriptor.  Clearing
    // it cost two fcntl calls per file, a fifth of a database walk's calls.
    if (status_out != nullptr)
        *status_out = file_status;
    return owned;
}

} // namespace

UniqueFd open_relation_file(const std::string &path) {
    return open_relation_file_checked(path, false, nullptr);
}

UniqueFd open_relation_file_if_present(const std::string &path, struct stat *status_out) {
    return open_relation_file_checked(path, true, status_out);
}

FileMapping::FileMapping(int fd, std::size_t offset, std::size_t length) : length_(length) {
    void *address = ::mmap(nullptr, length, PROT_READ, MAP_SHARED, fd, static_cast<off_t>(offset));
    if (address == MAP_FAILED)
        throw SystemError(errno, SystemCall::mmap);
    address_ = address;
}

FileMapping::~FileMapping() {
    if (address_ != nullptr)
        ::munmap(address_, length_);
}

} // namespace pg_cachectl
