// residency_report.hpp — the segment table behind os_residency(): one entry
// per (fork, segment) file, measured with the chosen engine, resumable after
// a cancellation.
#pragma once
#include "server_free.hpp"

#include "engine_choice.hpp"
#include "os_page_cache.hpp"

#include <boost/container/flat_map.hpp>

#include <csignal>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace pg_cachectl {

struct SegmentResidency {
    std::string path;
    Engine engine = Engine::mincore;
    std::int64_t size_bytes = 0;
    std::int64_t os_pages = 0;
    CacheCounts counts;
};

// Residency sums of several segments.
struct ResidencyTotal {
    std::int64_t size_bytes = 0;
    std::int64_t os_pages = 0;
    CacheCounts counts;
    bool has_cachestat_counters = true;
};

class ResidencyReport {
  public:
    // Key: (fork number, segment number); the flat map keeps rows in order.
    using SegmentKey = std::pair<int, int>;
    using SegmentTable = boost::container::flat_map<SegmentKey, SegmentResidency>;

    // mincore windows are this large at most, so a cancellation is noticed
    // within one window and the mapping stays bounded.
    static constexpr std::int64_t default_window_bytes = std::int64_t{128} << 20;

    explicit ResidencyReport(EngineChoice choice, std::int64_t window_bytes = default_window_bytes);

    // Measures every segment file of a fork (see bridge.h).  Returns false if
    // it stopped because *cancel_flag was set; calling again with the same
    // fork resumes.  Throws SystemError / NotSupported.
    bool scan_fork(int fork_number, const std::string &base_path, std::int64_t segment_bytes,
                   const volatile std::sig_atomic_t *cancel_flag);

    void clear();
    const SegmentTable &segments() const { return segments_; }
    ResidencyTotal total() const;

  private:
    // Where an interrupted scan_fork stopped.
    struct ScanPosition {
        int fork_number = -1;
        std::string base_path;
        int segment = 0;
        std::int64_t offset = 0; // within the segment, for mincore
        std::optional<SegmentResidency> partial;
    };

    bool measure_segment(int fd, const std::string &path);
    bool cancelled(const volatile std::sig_atomic_t *cancel_flag) const;

    EngineChoice choice_;
    std::int64_t window_bytes_;
    SegmentTable segments_;
    ScanPosition position_;
};

} // namespace pg_cachectl
