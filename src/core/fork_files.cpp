// fork_files.cpp — a fork's size from the sizes of its segment files.
#include "fork_files.hpp"

#include "core_errors.hpp"
#include "posix_handles.hpp"
#include "segment_math.hpp"

#include <cerrno>
#include <sys/stat.h>

namespace pg_cachectl {

std::optional<std::int64_t> fork_size_bytes(const std::string &base_path, std::int64_t segment_bytes) {
    if (segment_bytes <= 0)
        throw InvalidArgument("the segment size must be positive");
    std::int64_t total = 0;
    for (int segment = 0;; ++segment) {
        const std::string path = segment_path(base_path, segment);
        struct stat file_status {};
        if (::stat(path.c_str(), &file_status) != 0) {
            if (errno != ENOENT)
                throw SystemError(errno, SystemCall::stat).on_file(path);
            if (segment == 0)
                return std::nullopt;
            return total;
        }
        // A directory or a FIFO in place of a segment has a size too (a
        // directory's is 4096): refuse it rather than report a wrong size.
        check_relation_file(path, file_status);
        total += static_cast<std::int64_t>(file_status.st_size);
        if (file_status.st_size < segment_bytes)
            return total;
    }
}

} // namespace pg_cachectl
