// posix_handles.hpp — RAII owners of a file descriptor and of a mapping.
#pragma once
#include "pg_cachectl/server_free.hpp"

#include <cstddef>
#include <string>

namespace pg_cachectl {

// An open file descriptor, closed when the owner goes away.
class UniqueFd {
  public:
    UniqueFd() = default;
    explicit UniqueFd(int fd) : fd_(fd) {}
    UniqueFd(const UniqueFd &) = delete;
    UniqueFd &operator=(const UniqueFd &) = delete;
    UniqueFd(UniqueFd &&other) noexcept : fd_(other.release()) {}
    UniqueFd &operator=(UniqueFd &&other) noexcept;
    ~UniqueFd();

    int get() const { return fd_; }
    bool valid() const { return fd_ >= 0; }
    int release() noexcept;

  private:
    int fd_ = -1;
};

// Opens path read-only; throws SystemError (with the path) on failure.
UniqueFd open_read_only(const std::string &path);

// Opens a relation segment file read-only without blocking on whatever sits
// at its path, and refuses anything but a regular file (SystemError).
UniqueFd open_relation_file(const std::string &path);

// A read-only shared mapping of part of a file, unmapped when the owner goes
// away.  Mapping does not read the file: pages are only faulted in on access,
// and the core never touches them.
class FileMapping {
  public:
    FileMapping(int fd, std::size_t offset, std::size_t length);
    FileMapping(const FileMapping &) = delete;
    FileMapping &operator=(const FileMapping &) = delete;
    ~FileMapping();

    void *address() const { return address_; }
    std::size_t length() const { return length_; }

  private:
    void *address_ = nullptr;
    std::size_t length_ = 0;
};

} // namespace pg_cachectl
