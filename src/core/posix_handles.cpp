// posix_handles.cpp — RAII owners of file descriptors and mappings.
#include "pg_cachectl/posix_handles.hpp"

#include "pg_cachectl/core_errors.hpp"

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
        throw SystemError(errno, "could not open file \"" + path + "\"");
    return UniqueFd(fd);
}

UniqueFd open_relation_file(const std::string &path) {
    int fd;
    do {
        fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0)
        throw SystemError(errno, "could not open file \"" + path + "\"");
    UniqueFd owned(fd);
    struct stat file_status {};
    if (::fstat(fd, &file_status) != 0)
        throw SystemError(errno, "could not stat file \"" + path + "\"");
    if (!S_ISREG(file_status.st_mode))
        throw SystemError(S_ISDIR(file_status.st_mode) ? EISDIR : EINVAL, "\"" + path + "\" is not a regular file");
    return owned;
}

FileMapping::FileMapping(int fd, std::size_t offset, std::size_t length) : length_(length) {
    void *address = ::mmap(nullptr, length, PROT_READ, MAP_SHARED, fd, static_cast<off_t>(offset));
    if (address == MAP_FAILED)
        throw SystemError(errno, "mmap failed");
    address_ = address;
}

FileMapping::~FileMapping() {
    if (address_ != nullptr)
        ::munmap(address_, length_);
}

} // namespace pg_cachectl
