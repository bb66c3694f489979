// throttle.hpp — the arithmetic of max_mb_per_sec: how long to pause so
// that work done since the start never runs ahead of the rate, and how much
// to do between pauses so the rate holds over short spans too.
#pragma once
#include "server_free.hpp"

#include <chrono>
#include <cstdint>

namespace pg_cachectl {

class Throttle {
  public:
    // No limit.
    Throttle() = default;
    // bytes_per_second must be positive and finite (InvalidArgument if not).
    explicit Throttle(double bytes_per_second);

    bool limited() const { return bytes_per_second_ > 0; }

    // The pause needed before more work, bytes_done having taken `elapsed`:
    // zero while the work is behind the rate, at most longest_delay.
    std::chrono::microseconds delay_before_more(std::int64_t bytes_done, std::chrono::microseconds elapsed) const;

    // The most to do at once: a tenth of a second's worth at the rate, at
    // least min_bytes, at most max_bytes (max_bytes when unlimited).
    std::int64_t burst_bytes(std::int64_t min_bytes, std::int64_t max_bytes) const;

    static constexpr std::chrono::microseconds longest_delay{std::int64_t{86400} * 1000 * 1000};

  private:
    double bytes_per_second_ = 0;
};

} // namespace pg_cachectl
