// posix_handles.hpp — RAII owners of a file descriptor and of a mapping.
#pragma once
#include "server_free.hpp"

#include <cstddef>
#include <string>
#include <sys/stat.h>

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

// Opens a relation file (a segment of a fork) read-only, safely: the open
// never blocks (a FIFO in place of a segment would otherwise block it for
// good, deaf to cancellation), then the file must be a regular file owned by
// the process's effective user, else UnsafeFile (naming the file and what it
// is).  A file the server does not own is refused because the kernel hides
// its page-cache state from mincore and cachestat (CVE-2019-5489): mincore
// would call it all cached.  The descriptor keeps O_NONBLOCK, which does
// nothing on a regular file: no code may rely on it.
// Every new code path that opens a relation file goes through this.
UniqueFd open_relation_file(const std::string &path);

// The same, except that a file that does not exist (ENOENT: the usual end of
// a fork, and most relations have no free space map, visibility map or init
// fork) returns an invalid UniqueFd instead of throwing.  Scans over many
// relations use it: a thrown and caught exception per missing fork costs more
// than the open that found it missing.  With status_out, what fstat(2) said
// of the file opened (its size, say), so the caller need not ask again.
UniqueFd open_relation_file_if_present(const std::string &path, struct stat *status_out = nullptr);

// The same checks on what stat(2) or fstat(2) said about path.
void check_relation_file(const std::string &path, const struct stat &file_status);

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
