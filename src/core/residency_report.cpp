// residency_report.cpp — measuring every segment file of a fork into the
// report's segment table, one bounded unit per step.
#include "residency_report.hpp"

#include "core_errors.hpp"
#include "posix_handles.hpp"
#include "segment_math.hpp"

#include <cerrno>
#include <sys/stat.h>

namespace pg_cachectl {

ResidencyReport::ResidencyReport(EngineChoice choice, std::int64_t window_bytes)
    : choice_(choice), window_bytes_(window_bytes) {
    const std::int64_t page_size = os_page_size();
    if (window_bytes <= 0 || window_bytes % page_size != 0)
        throw InvalidArgument("the mincore window must be a positive multiple of the page size");
}

void ResidencyReport::clear() noexcept {
    segments_.clear();
    position_ = ScanPosition{};
}

Engine ResidencyReport::engine_for(int fd, const std::string &path) {
    const std::string::size_type slash = path.rfind('/');
    const std::string directory = slash == std::string::npos ? std::string() : path.substr(0, slash);
    if (directory_engine_ && directory == engine_directory_)
        return *directory_engine_;
    directory_engine_ = choose_engine(choice_, fd);
    engine_directory_ = directory;
    return *directory_engine_;
}

// Measures one unit of work of the segment open on fd (size_bytes long when
// opened): all of it with cachestat, one window with mincore.  Returns
// whether the segment is done.
bool ResidencyReport::measure_segment(int fd, const std::string &path, std::int64_t size_bytes) {
    if (!position_.partial) {
        SegmentResidency entry;
        entry.path = path;
        entry.engine = engine_for(fd, path);
        entry.size_bytes = size_bytes;
        entry.size_pages = pages_spanned(entry.size_bytes, os_page_size());
        position_.partial = entry;
        position_.offset = 0;
    }

    SegmentResidency &entry = *position_.partial;
    if (entry.engine == Engine::cachestat) {
        int failure_errno = 0;
        std::optional<CacheCounts> counts = cachestat_range(fd, 0, entry.size_bytes, &failure_errno);
        if (!counts) // the probe on our own file passed: EPERM here is about this file
            throw SystemError(failure_errno, SystemCall::cachestat);
        entry.counts = *counts;
        return true;
    }
    ByteRange window = window_at(position_.offset, entry.size_bytes, window_bytes_);
    if (window.length > 0) {
        entry.counts.os_pages += mincore_resident_pages(fd, window.offset, window.length);
        position_.offset += window.length;
    }
    return position_.offset >= entry.size_bytes;
}

bool ResidencyReport::step_fork(int fork_number, const std::string &base_path, std::int64_t segment_bytes) {
    if (base_path.empty())
        throw InvalidArgument("the fork's path must not be empty");
    if (segment_bytes <= 0)
        throw InvalidArgument("the segment size must be positive");

    // A different fork than the last step's starts from its first segment.
    if (position_.fork_number != fork_number || position_.base_path != base_path) {
        position_ = ScanPosition{};
        position_.fork_number = fork_number;
        position_.base_path = base_path;
    }

    const std::string path = segment_path(base_path, position_.segment);
    struct stat file_status {};
    UniqueFd fd = open_relation_file_if_present(path, &file_status);
    if (!fd.valid()) {
        // A missing file ends the fork, as it ends it for md.c.
        position_ = ScanPosition{};
        return true;
    }

    bool segment_done = true;
    try {
        segment_done = measure_segment(fd.get(), path, static_cast<std::int64_t>(file_status.st_size));
    } catch (const SystemError &error) {
        // The low-level calls do not know the file: name it for the user.
        throw error.on_file(path);
    }
    SegmentResidency &entry = *position_.partial;
    if (segment_done) {
        // md.c reads a fork until the first segment shorter than a full
        // one; zero-length files after it are inactive leftovers of a truncation.
        const bool fork_continues = entry.size_bytes >= segment_bytes;
        segments_[SegmentKey{fork_number, position_.segment}] = std::move(entry);
        position_.partial.reset();
        position_.offset = 0;
        position_.segment++;
        if (!fork_continues) {
            position_ = ScanPosition{};
            return true;
        }
    }
    return false;
}

ResidencyTotal ResidencyReport::total() const noexcept {
    ResidencyTotal total;
    for (const auto &[key, segment] : segments_) {
        total.size_bytes += segment.size_bytes;
        total.size_pages += segment.size_pages;
        total.counts += segment.counts;
        if (segment.engine != Engine::cachestat)
            total.has_cachestat_counters = false;
    }
    return total;
}

} // namespace pg_cachectl
