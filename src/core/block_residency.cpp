// block_residency.cpp — the OS residency of chosen blocks, run by run.
#include "block_residency.hpp"

#include "block_lists.hpp"
#include "core_errors.hpp"
#include "fork_prefetch.hpp"
#include "os_page_cache.hpp"
#include "posix_handles.hpp"
#include "segment_math.hpp"

#include <algorithm>
#include <cerrno>
#include <optional>

namespace pg_cachectl {

std::int64_t os_pages_of_blocks(const std::string &base_path, std::int64_t segment_bytes, std::int64_t block_size,
                                std::span<const std::uint32_t> blocks, EngineChoice engine) {
    if (block_size <= 0 || segment_bytes <= 0 || segment_bytes % block_size != 0)
        throw InvalidArgument("the segment size must be a multiple of the block size");
    const std::int64_t page_size = os_page_size();
    const std::int64_t blocks_per_segment = segment_bytes / block_size;
    std::int64_t os_pages = 0;

    int open_segment = -1;
    UniqueFd fd;
    bool use_cachestat = false;
    bool segment_missing = false;
    for (const BlockRange &run : runs_of_blocks(blocks)) {
        // a run may cross segment boundaries: cut it there
        for (std::int64_t first = run.first; first < run.end();) {
            const int segment = static_cast<int>(first / blocks_per_segment);
            const std::int64_t segment_first_block = segment * blocks_per_segment;
            const std::int64_t end = std::min(run.end(), segment_first_block + blocks_per_segment);
            if (segment != open_segment) {
                open_segment = segment;
                const std::string path = segment_path(base_path, segment);
                segment_missing = false;
                try {
                    fd = open_relation_file(path);
                    use_cachestat = choose_engine(engine, fd.get()) == Engine::cachestat;
                } catch (const SystemError &error) {
                    if (error.error_number() != ENOENT)
                        throw error.on_file(path);
                    segment_missing = true;
                }
            }
            if (!segment_missing) {
                const PageRange pages =
                    pages_of_blocks(BlockRange{first, end - first}, segment_first_block, block_size, page_size);
                std::optional<CacheCounts> counts;
                if (use_cachestat)
                    counts = cachestat_range(fd.get(), pages.first * page_size, pages.count * page_size, nullptr);
                os_pages += counts ? counts->os_pages
                                   : mincore_resident_pages(fd.get(), pages.first * page_size, pages.count * page_size);
            }
            first = end;
        }
    }
    return os_pages;
}

} // namespace pg_cachectl
