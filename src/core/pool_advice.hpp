// pool_advice.hpp — the sampler's model of shared buffers at other sizes:
// the observer (pool_observer.hpp) tells accesses to sampled blocks from
// the headers read each round, and the curve (pool_size_curve.hpp) runs
// them through a miniature pool per candidate size.  One per sampler
// process; pool_advice.h is its C ABI.
#pragma once
#include "server_free.hpp"

#include "pool_observer.hpp"
#include "pool_size_curve.hpp"

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace pg_cachectl {

class PoolAdvice {
  public:
    // As PoolSizeCurve's and PoolObserver's arguments (InvalidArgument
    // when out of range; pool_buffers must also fit a buffer number).
    PoolAdvice(std::int64_t pool_buffers, std::vector<double> size_ratios, double rate, std::size_t max_sampled_blocks,
               std::uint32_t full_read_every, std::uint64_t seed);

    std::vector<std::uint32_t> buffers_to_read(std::uint64_t hand) {
        empty_offered_ = 0;
        return observer_.buffers_to_read(hand);
    }

    // The round's readings; returns how many accesses they told.
    std::size_t observe(std::uint64_t hand, const std::vector<BufferReading> &readings);

    // Whether the observer needs a reading of this buffer: it holds a sampled
    // block, the observer follows or watches it, or it is empty and the
    // watch has room.  Others may be left out of observe()'s readings (a pool
    // of millions need not be copied).  Call after buffers_to_read().
    bool wants_reading(std::uint32_t buffer, bool valid, std::uint64_t block_hash);
    // A buffer to read again next round (PoolObserver::recheck).
    void recheck(std::uint32_t buffer) { observer_.recheck(buffer); }

    const std::vector<std::uint32_t> &saturated_buffers() const { return observer_.saturated_buffers(); }
    void count_lowered(std::uint32_t buffer) { observer_.count_lowered(buffer); }
    // Counts from zero, the simulated pools and what is followed kept.
    void restart_counts() { curve_.restart_counts(); }

    std::vector<PoolSizePoint> points() const { return curve_.points(); }
    // Per relation (the readings' key): its accesses through the same pools.
    std::vector<std::uint64_t> relations() const { return curve_.groups(); }
    std::vector<PoolSizePoint> relation_points(std::uint64_t relation) const { return curve_.group_points(relation); }
    std::size_t followed_buffers() const { return observer_.followed_buffers(); }
    double sample_rate() const { return curve_.sample_rate(); }
    std::size_t sampled_blocks() const { return curve_.sampled_blocks(); }

  private:
    static std::uint32_t checked_buffers(std::int64_t pool_buffers);

    PoolSizeCurve curve_;
    PoolObserver observer_;
    // The relation of each sampled block seen in a buffer (told accesses
    // come as hashes); blocks that left the sample are dropped now and then.
    std::unordered_map<std::uint64_t, std::uint64_t> relation_of_;
    std::size_t empty_offered_ = 0; // empty buffers wanted this round, not yet watched
};

} // namespace pg_cachectl
