// pool_advice.cpp — the observer's told accesses through the curve.
#include "pool_advice.hpp"

#include "core_errors.hpp"

#include <limits>
#include <utility>

namespace pg_cachectl {

std::uint32_t PoolAdvice::checked_buffers(std::int64_t pool_buffers) {
    if (pool_buffers < 1 || pool_buffers > std::numeric_limits<std::int32_t>::max())
        throw InvalidArgument("the pool must have between 1 and 2^31 - 1 buffers");
    return static_cast<std::uint32_t>(pool_buffers);
}

PoolAdvice::PoolAdvice(std::int64_t pool_buffers, std::vector<double> size_ratios, double rate,
                       std::size_t max_sampled_blocks, std::uint32_t full_read_every, std::uint64_t seed)
    : curve_(checked_buffers(pool_buffers), std::move(size_ratios), rate, max_sampled_blocks),
      observer_(checked_buffers(pool_buffers), full_read_every, seed) {}

std::size_t PoolAdvice::observe(std::uint64_t hand, const std::vector<BufferReading> &readings) {
    const std::vector<std::uint64_t> told =
        observer_.observe(hand, readings, [this](std::uint64_t hash) { return curve_.admits(hash); });
    for (const std::uint64_t block_hash : told)
        curve_.access(block_hash);
    return told.size();
}

} // namespace pg_cachectl
