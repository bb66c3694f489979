// storage_facts.hpp — what the kernel does with advice on a given file: how
// much one POSIX_FADV_WILLNEED call may queue on its device, and whether its
// filesystem honours the advice at all (tmpfs ignores it, ZFS has its own cache).
#pragma once
#include "server_free.hpp"

#include <cstdint>
#include <string>

namespace pg_cachectl {

enum class FilesystemKind { ordinary, tmpfs, zfs, overlayfs };

// The filesystem fd lives on, as far as cache advice is concerned.
FilesystemKind filesystem_kind(int fd);

// The most one WILLNEED call queues on fd's device: max(read_ahead_kb,
// max_sectors_kb) of its queue (the kernel cuts each call there).  Read from
// <sysfs_root>/dev/block/MAJ:MIN/queue, the parent disk's queue for a
// partition, or the bdi's read_ahead_kb for devices without a queue; 1 MiB
// when nothing can be read.  A guess to size calls: callers measure what each
// call really queued.
std::int64_t willneed_cap_bytes(int fd, const std::string &sysfs_root = "/sys");

// The same from a device's major and minor numbers (for tests).
std::int64_t willneed_cap_bytes_of_device(unsigned major_number, unsigned minor_number, const std::string &sysfs_root);

} // namespace pg_cachectl
