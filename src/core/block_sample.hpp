// block_sample.hpp — which blocks the pool-size model follows.  A spatial
// sample (SHARDS, Waldspurger et al., FAST 2015): a block is in the sample
// when a hash of its identity falls below a threshold, so a block is always
// or never followed, whatever order it is read in, and every access to a
// followed block is seen.  The sampled accesses then stand for all accesses
// with weight 1/rate.  When more distinct blocks are followed than the bound
// allows, the threshold drops to exclude the highest hashes (SHARDS_max):
// memory stays bounded and the rate says what the sample now stands for.
#pragma once
#include "server_free.hpp"

#include "block_slot_map.hpp"

#include <cstddef>
#include <cstdint>
#include <queue>
#include <vector>

namespace pg_cachectl {

// A block as PostgreSQL's buffer tag names it.
struct BlockIdentity {
    std::uint32_t tablespace = 0;
    std::uint32_t database = 0;
    std::uint32_t relation = 0; // relfilenumber
    std::int32_t fork = 0;
    std::uint32_t block = 0;
};

// A 64-bit hash of the identity, the same in every process and on every
// major (tests pin values): neighbouring blocks and forks hash apart, so the
// sample is no run of adjacent blocks.  pool_advice.h's cachectl_block_hash,
// which the sampler calls inline in C.
std::uint64_t block_identity_hash(const BlockIdentity &block) noexcept;

class BlockSample {
  public:
    // rate in (0, 1]; max_blocks >= 1 (InvalidArgument otherwise).
    BlockSample(double rate, std::size_t max_blocks);

    // Whether a block with this hash is in the sample at today's threshold.
    bool admits(std::uint64_t hash) const { return hash < threshold_ || everything_; }

    // The share of all blocks the sample holds: each sampled access stands
    // for 1/rate accesses.
    double rate() const;

    // Records an access to an admitted block.  When the block is new and the
    // bound is passed, the threshold drops below the highest hashes followed;
    // their hashes are returned (the caller forgets them), possibly
    // including this one.  An access to a block not admitted is ignored.
    std::vector<std::uint64_t> follow(std::uint64_t hash);

    std::size_t followed_blocks() const { return followed_.size(); }
    std::size_t max_blocks() const { return max_blocks_; }

  private:
    bool everything_;         // rate 1: every hash, UINT64_MAX included
    std::uint64_t threshold_; // admitted: hash < threshold_
    std::size_t max_blocks_;
    // the hashes followed (as keys; the index is unused): every sampled
    // access looks its block up here, and a node-based set spent 6 % of
    // the sampler's CPU on it
    BlockSlotMap followed_;
    std::priority_queue<std::uint64_t> highest_first_;
};

} // namespace pg_cachectl
