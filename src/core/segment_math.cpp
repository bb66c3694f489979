// segment_math.cpp — relation fork → segment files → OS pages.
#include "segment_math.hpp"

#include "core_errors.hpp"

#include <algorithm>
#include <cerrno>
#include <unistd.h>

namespace pg_cachectl {

std::int64_t os_page_size() {
    static const long page_size = ::sysconf(_SC_PAGESIZE);
    if (page_size <= 0)
        throw SystemError(errno, SystemCall::sysconf_page_size);
    return static_cast<std::int64_t>(page_size);
}

std::int64_t pages_spanned(std::int64_t bytes, std::int64_t page_size) {
    if (page_size <= 0)
        throw InvalidArgument("page size must be positive");
    if (bytes <= 0)
        return 0;
    return (bytes + page_size - 1) / page_size;
}

std::string segment_path(std::string_view base_path, int segment) {
    std::string path(base_path);
    if (segment > 0) {
        path += '.';
        path += std::to_string(segment);
    }
    return path;
}

ByteRange window_at(std::int64_t offset, std::int64_t file_bytes, std::int64_t window_bytes) {
    if (window_bytes <= 0)
        throw InvalidArgument("window size must be positive");
    if (offset >= file_bytes)
        return ByteRange{offset, 0};
    return ByteRange{offset, std::min(window_bytes, file_bytes - offset)};
}

} // namespace pg_cachectl
