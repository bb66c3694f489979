// block_sample.cpp — the spatial sample of blocks and its bound.
#include "block_sample.hpp"

#include "core_errors.hpp"
#include "pg_cachectl/pool_advice.h"

#include <cmath>

namespace pg_cachectl {

namespace {

constexpr double two_to_the_64 = 18446744073709551616.0;

} // namespace

std::uint64_t block_identity_hash(const BlockIdentity &block) noexcept {
    // one definition, the C ABI's: the sampler computes it inline in C
    return cachectl_block_hash(block.tablespace, block.database, block.relation, block.fork, block.block);
}

BlockSample::BlockSample(double rate, std::size_t max_blocks) : max_blocks_(max_blocks) {
    if (!(rate > 0 && rate <= 1))
        throw InvalidArgument("the sample rate must be in (0, 1]");
    if (max_blocks == 0)
        throw InvalidArgument("the sample must follow at least one block");
    everything_ = rate == 1;
    threshold_ = everything_ ? 0 : static_cast<std::uint64_t>(std::ldexp(rate, 64));
    if (!everything_ && threshold_ == 0)
        threshold_ = 1;
}

double BlockSample::rate() const {
    return everything_ ? 1.0 : static_cast<double>(threshold_) / two_to_the_64;
}

std::vector<std::uint64_t> BlockSample::follow(std::uint64_t hash) {
    std::vector<std::uint64_t> dropped;
    if (!admits(hash) || followed_.find(hash) != BlockSlotMap::absent)
        return dropped;
    followed_.insert(hash, 0);
    highest_first_.push(hash);
    while (followed_.size() > max_blocks_) {
        // The highest hash leaves and becomes the threshold: every hash at or
        // above it is out, now and later (SHARDS_max).
        const std::uint64_t highest = highest_first_.top();
        while (!highest_first_.empty() && highest_first_.top() == highest)
            highest_first_.pop();
        followed_.erase(highest);
        dropped.push_back(highest);
        everything_ = false;
        threshold_ = highest;
    }
    return dropped;
}

} // namespace pg_cachectl
