// fork_files.hpp — the size of a relation fork, read from its segment files
// with stat(2): no file is opened, so a read-only report never needs write
// access (PostgreSQL's smgr opens relation files read-write).
#pragma once
#include "server_free.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace pg_cachectl {

// The fork's size in bytes, walking base_path, base_path.1, ... as md.c does
// (up to the first segment shorter than segment_bytes); nothing when its
// first file does not exist.  A segment that is not a regular file owned by
// the process's user is UnsafeFile (see open_relation_file); any other
// failure is SystemError.
std::optional<std::int64_t> fork_size_bytes(const std::string &base_path, std::int64_t segment_bytes);

} // namespace pg_cachectl
