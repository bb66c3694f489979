// residency_report.hpp — the segment table behind os_residency(): one entry
// per (fork, segment) file, measured with the chosen engine, resumable after
// a step.
#pragma once
#include "server_free.hpp"

#include "engine_choice.hpp"
#include "os_page_cache.hpp"

#include <boost/container/flat_map.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace pg_cachectl {

struct SegmentResidency {
    std::string path;
    Engine engine = Engine::mincore;
    std::int64_t size_bytes = 0;
    std::int64_t size_pages = 0;
    CacheCounts counts;
};

// Residency sums of several segments.
struct ResidencyTotal {
    std::int64_t size_bytes = 0;
    std::int64_t size_pages = 0;
    CacheCounts counts;
    bool has_cachestat_counters = true;
};

class ResidencyReport {
  public:
    // Key: (fork number, segment number); the flat map keeps rows in order.
    using SegmentKey = std::pair<int, int>;
    using SegmentTable = boost::container::flat_map<SegmentKey, SegmentResidency>;

    // mincore windows are this large at most, so a step is short and the mapping stays bounded.
    static constexpr std::int64_t default_window_bytes = std::int64_t{128} << 20;

    explicit ResidencyReport(EngineChoice choice, std::int64_t window_bytes = default_window_bytes);

    // Measures one bounded unit of a fork's segment files (see residency.h):
    // returns whether the fork is done; calling again with the same fork goes
    // on where the last call stopped.  Throws SystemError / NotSupported.
    bool step_fork(int fork_number, const std::string &base_path, std::int64_t segment_bytes);

    void clear() noexcept;
    const SegmentTable &segments() const { return segments_; }
    ResidencyTotal total() const noexcept;

  private:
    // Where the last step_fork stopped.
    struct ScanPosition {
        int fork_number = -1;
        std::string base_path;
        int segment = 0;
        std::int64_t offset = 0; // within the segment, for mincore
        std::optional<SegmentResidency> partial;
    };

    bool measure_segment(int fd, const std::string &path, std::int64_t size_bytes);

    // The engine for the file open on fd.  Files in one directory share its
    // file system, hence choose_engine()'s answer (an fstatfs each): it is
    // asked once per directory in a row, not once per file.
    Engine engine_for(int fd, const std::string &path);

    EngineChoice choice_;
    std::string engine_directory_;
    std::optional<Engine> directory_engine_;
    std::int64_t window_bytes_;
    SegmentTable segments_;
    ScanPosition position_;
};

} // namespace pg_cachectl
