// throttle.cpp — pauses and bursts for a bandwidth limit.
#include "throttle.hpp"

#include "core_errors.hpp"

#include <algorithm>
#include <cmath>

namespace pg_cachectl {

Throttle::Throttle(double bytes_per_second) : bytes_per_second_(bytes_per_second) {
    if (!std::isfinite(bytes_per_second) || bytes_per_second <= 0)
        throw InvalidArgument("a rate limit must be positive and finite");
}

std::chrono::microseconds Throttle::delay_before_more(std::int64_t bytes_done,
                                                      std::chrono::microseconds elapsed) const {
    if (!limited() || bytes_done <= 0)
        return std::chrono::microseconds{0};
    const double due_seconds = static_cast<double>(bytes_done) / bytes_per_second_;
    const double due_microseconds = std::ceil(due_seconds * 1e6);
    const double ahead = due_microseconds - static_cast<double>(elapsed.count());
    if (ahead <= 0)
        return std::chrono::microseconds{0};
    // A rate like 1e-300 MB/s puts the next byte ages away: converting that
    // to an integer overflowed (and became no pause at all).  Callers sleep
    // in short slices and ask again, so a day stands for "later than that".
    if (!(ahead < static_cast<double>(longest_delay.count())))
        return longest_delay;
    return std::chrono::microseconds{static_cast<std::int64_t>(ahead)};
}

std::int64_t Throttle::burst_bytes(std::int64_t min_bytes, std::int64_t max_bytes) const {
    if (!limited())
        return max_bytes;
    const double tenth = bytes_per_second_ / 10.0;
    if (tenth >= static_cast<double>(max_bytes))
        return max_bytes;
    return std::clamp(static_cast<std::int64_t>(tenth), min_bytes, max_bytes);
}

} // namespace pg_cachectl
