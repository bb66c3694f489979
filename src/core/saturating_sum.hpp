// saturating_sum.hpp — a + b for counters summed over a server's life
// (read tallies, per-relation counters): they stop at the largest value
// rather than wrap into negatives.
#pragma once
#include <cstdint>
#include <limits>

namespace pg_cachectl {

inline std::int64_t saturating_sum(std::int64_t a, std::int64_t b) {
    if (b > 0 && a > std::numeric_limits<std::int64_t>::max() - b)
        return std::numeric_limits<std::int64_t>::max();
    return a + b;
}

} // namespace pg_cachectl
