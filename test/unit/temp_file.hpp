// temp_file.hpp — temporary files on a real disk filesystem whose page-cache
// state a test controls: write, fsync, drop from the cache, read back.
//
// Files go to $CACHECTL_TEST_DIR if set, else to the current directory.  They
// must not be on tmpfs or ramfs: POSIX_FADV_DONTNEED does nothing there, so a
// "cold" file would stay cached and every cold-cache assertion would lie.
#pragma once

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace pg_cachectl::test {

// The kernel's page size: the tests never assume 4 KB.
inline std::int64_t page_size() {
    const long size = ::sysconf(_SC_PAGESIZE);
    REQUIRE(size > 0);
    return size;
}

inline std::int64_t pages_of(std::int64_t bytes) {
    return (bytes + page_size() - 1) / page_size();
}

inline std::string test_directory() {
    const char *configured = std::getenv("CACHECTL_TEST_DIR");
    if (configured != nullptr && configured[0] != '\0')
        return configured;
    return std::filesystem::current_path().string();
}

inline std::string errno_text() {
    return std::strerror(errno);
}

inline long filesystem_type(int fd) {
    struct statfs info {};
    if (::fstatfs(fd, &info) != 0)
        FAIL("fstatfs failed: " << errno_text());
    return static_cast<long>(info.f_type);
}

// Fails the test with a clear reason when `directory` is on a memory
// filesystem; checked before anything is created there, so nothing leaks.
inline void require_disk_filesystem(const std::string &directory) {
    struct statfs info {};
    if (::statfs(directory.c_str(), &info) != 0)
        FAIL("statfs of " << directory << " failed: " << errno_text());
    const long type = static_cast<long>(info.f_type);
    if (type == TMPFS_MAGIC || type == RAMFS_MAGIC)
        FAIL(directory << " is on tmpfs/ramfs, where POSIX_FADV_DONTNEED does nothing; "
                       << "set CACHECTL_TEST_DIR to a directory on a disk filesystem");
}

// A fresh directory under test_directory(), removed with everything in it.
class TempDirectory {
  public:
    TempDirectory() {
        require_disk_filesystem(test_directory());
        std::string pattern = test_directory() + "/pg_cachectl_unit.XXXXXX";
        std::vector<char> name(pattern.begin(), pattern.end());
        name.push_back('\0');
        if (::mkdtemp(name.data()) == nullptr)
            FAIL("could not create a directory in " << test_directory() << ": " << errno_text());
        path_ = name.data();
    }
    TempDirectory(const TempDirectory &) = delete;
    TempDirectory &operator=(const TempDirectory &) = delete;
    ~TempDirectory() {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }

    const std::string &path() const { return path_; }
    std::string file(std::string_view name) const { return path_ + "/" + std::string(name); }

  private:
    std::string path_;
};

// One file, created empty and removed when the owner goes away.
class TempFile {
  public:
    // A new file `name` in dir (whose filesystem TempDirectory checked).
    TempFile(const TempDirectory &dir, std::string_view name) : path_(dir.file(name)) {
        fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd_ < 0)
            FAIL("could not create " << path_ << ": " << errno_text());
    }
    // A new file with a unique name directly in test_directory().
    TempFile() {
        require_disk_filesystem(test_directory());
        std::string pattern = test_directory() + "/pg_cachectl_unit.XXXXXX";
        std::vector<char> name(pattern.begin(), pattern.end());
        name.push_back('\0');
        fd_ = ::mkostemp(name.data(), O_CLOEXEC);
        if (fd_ < 0)
            FAIL("could not create a file in " << test_directory() << ": " << errno_text());
        path_ = name.data();
    }
    TempFile(const TempFile &) = delete;
    TempFile &operator=(const TempFile &) = delete;
    ~TempFile() {
        if (fd_ >= 0)
            ::close(fd_);
        ::unlink(path_.c_str());
    }

    int fd() const { return fd_; }
    const std::string &path() const { return path_; }

    std::int64_t size() const {
        struct stat status {};
        if (::fstat(fd_, &status) != 0)
            FAIL("fstat of " << path_ << " failed: " << errno_text());
        return status.st_size;
    }
    std::int64_t pages() const { return pages_of(size()); }

    // Appends `bytes` bytes of a non-zero pattern (zeroes could be stored as holes).
    void append(std::int64_t bytes) {
        const std::vector<char> chunk(std::size_t{1} << 20, 'x');
        std::int64_t offset = size();
        while (bytes > 0) {
            const std::size_t wanted = static_cast<std::size_t>(std::min<std::int64_t>(bytes, chunk.size()));
            const ssize_t written = ::pwrite(fd_, chunk.data(), wanted, offset);
            if (written < 0 && errno == EINTR)
                continue;
            if (written <= 0)
                FAIL("write to " << path_ << " failed: " << errno_text());
            offset += written;
            bytes -= written;
        }
    }

    void sync() {
        if (::fsync(fd_) != 0)
            FAIL("fsync of " << path_ << " failed: " << errno_text());
    }

    // DONTNEED skips dirty and under-writeback pages, so write back first.
    void drop_from_cache() {
        if (::fdatasync(fd_) != 0)
            FAIL("fdatasync of " << path_ << " failed: " << errno_text());
        const int advice_error = ::posix_fadvise(fd_, 0, 0, POSIX_FADV_DONTNEED);
        if (advice_error != 0)
            FAIL("posix_fadvise(DONTNEED) on " << path_ << " failed: " << std::strerror(advice_error));
    }

    // Turns readahead off for this descriptor: a read then caches exactly the
    // pages it asks for and returns only once they are all read.
    void disable_readahead() {
        const int advice_error = ::posix_fadvise(fd_, 0, 0, POSIX_FADV_RANDOM);
        if (advice_error != 0)
            FAIL("posix_fadvise(RANDOM) on " << path_ << " failed: " << std::strerror(advice_error));
    }

    // Reads [offset, offset + length), which must lie within the file.
    void read_range(std::int64_t offset, std::int64_t length) {
        std::vector<char> buffer(std::size_t{1} << 20);
        while (length > 0) {
            const std::size_t wanted = static_cast<std::size_t>(std::min<std::int64_t>(length, buffer.size()));
            const ssize_t got = ::pread(fd_, buffer.data(), wanted, offset);
            if (got < 0 && errno == EINTR)
                continue;
            if (got < 0)
                FAIL("read of " << path_ << " failed: " << errno_text());
            if (got == 0)
                FAIL("read of " << path_ << " hit the end of the file at " << offset);
            offset += got;
            length -= got;
        }
    }

  private:
    std::string path_;
    int fd_ = -1;
};

} // namespace pg_cachectl::test
