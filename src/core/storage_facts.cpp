// storage_facts.cpp — the device's per-call read-ahead cap and the
// filesystem's attitude to cache advice.
#include "storage_facts.hpp"

#include "core_errors.hpp"

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <optional>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>

namespace pg_cachectl {

namespace {

constexpr long tmpfs_magic = 0x01021994;
constexpr long zfs_magic = 0x2fc12fc1;
constexpr long overlayfs_magic = 0x794c7630;
constexpr std::int64_t fallback_cap_bytes = std::int64_t{1} << 20;

// A number of KiB from a one-line sysfs file, if it reads as one.
std::optional<std::int64_t> read_kib(const std::string &path) {
    std::ifstream file(path);
    std::int64_t kib = -1;
    if (!(file >> kib) || kib < 0)
        return std::nullopt;
    return kib * 1024;
}

// The larger of read_ahead_kb and max_sectors_kb in a queue directory.
std::optional<std::int64_t> queue_cap(const std::string &queue_directory) {
    std::optional<std::int64_t> read_ahead = read_kib(queue_directory + "/read_ahead_kb");
    std::optional<std::int64_t> max_sectors = read_kib(queue_directory + "/max_sectors_kb");
    if (!read_ahead && !max_sectors)
        return std::nullopt;
    return std::max(read_ahead.value_or(0), max_sectors.value_or(0));
}

} // namespace

FilesystemKind filesystem_kind(int fd) {
    struct statfs info {};
    if (::fstatfs(fd, &info) != 0)
        throw SystemError(errno, SystemCall::statfs);
    switch (static_cast<long>(info.f_type)) {
    case tmpfs_magic:
        return FilesystemKind::tmpfs;
    case zfs_magic:
        return FilesystemKind::zfs;
    case overlayfs_magic:
        return FilesystemKind::overlayfs;
    default:
        return FilesystemKind::ordinary;
    }
}

std::int64_t willneed_cap_bytes_of_device(unsigned major_number, unsigned minor_number, const std::string &sysfs_root) {
    const std::string device =
        sysfs_root + "/dev/block/" + std::to_string(major_number) + ":" + std::to_string(minor_number);
    if (auto cap = queue_cap(device + "/queue"); cap && *cap > 0)
        return *cap;
    // A partition has no queue of its own: its disk's is one level up.
    if (auto cap = queue_cap(device + "/../queue"); cap && *cap > 0)
        return *cap;
    const std::string bdi =
        sysfs_root + "/class/bdi/" + std::to_string(major_number) + ":" + std::to_string(minor_number);
    if (auto cap = queue_cap(bdi); cap && *cap > 0)
        return *cap;
    return fallback_cap_bytes;
}

std::int64_t willneed_cap_bytes(int fd, const std::string &sysfs_root) {
    struct stat file_status {};
    if (::fstat(fd, &file_status) != 0)
        throw SystemError(errno, SystemCall::stat);
    return willneed_cap_bytes_of_device(major(file_status.st_dev), minor(file_status.st_dev), sysfs_root);
}

} // namespace pg_cachectl
