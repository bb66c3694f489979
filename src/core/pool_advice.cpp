// pool_advice.cpp — the observer's told accesses through the curve.
#include "pool_advice.hpp"

#include "core_errors.hpp"

#include <iterator>
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

bool PoolAdvice::wants_reading(std::uint32_t buffer, bool valid, std::uint64_t block_hash) {
    if (observer_.tracks(buffer))
        return true;
    if (valid)
        return curve_.admits(block_hash);
    if (observer_.watched_empty_buffers() + empty_offered_ >= PoolObserver::max_watched_empty_buffers)
        return false;
    ++empty_offered_;
    return true;
}

std::size_t PoolAdvice::observe(std::uint64_t hand, const std::vector<BufferReading> &readings) {
    const std::vector<std::uint64_t> told =
        observer_.observe(hand, readings, [this](std::uint64_t hash) { return curve_.admits(hash); });
    for (const PoolObserver::EnteredBlock &entered : observer_.entered_blocks())
        relation_of_.try_emplace(entered.block_hash, entered.relation);
    for (const std::uint64_t block_hash : told) {
        const auto relation = relation_of_.find(block_hash);
        curve_.access(block_hash, relation == relation_of_.end() ? 0 : relation->second);
    }
    // Bounded by the sample: when the threshold went down, the blocks it
    // left out go too.
    if (relation_of_.size() > 2 * curve_.sampled_blocks() + 1024)
        for (auto entry = relation_of_.begin(); entry != relation_of_.end();)
            entry = curve_.admits(entry->first) ? std::next(entry) : relation_of_.erase(entry);
    return told.size();
}

} // namespace pg_cachectl
