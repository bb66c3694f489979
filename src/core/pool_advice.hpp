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
#include <vector>

namespace pg_cachectl {

class PoolAdvice {
  public:
    // As PoolSizeCurve's and PoolObserver's arguments (InvalidArgument
    // when out of range; pool_buffers must also fit a buffer number).
    PoolAdvice(std::int64_t pool_buffers, std::vector<double> size_ratios, double rate, std::size_t max_sampled_blocks,
               std::uint32_t full_read_every, std::uint64_t seed);

    std::vector<std::uint32_t> buffers_to_read(std::uint64_t hand) { return observer_.buffers_to_read(hand); }

    // The round's readings; returns how many accesses they told.
    std::size_t observe(std::uint64_t hand, const std::vector<BufferReading> &readings);

    const std::vector<std::uint32_t> &saturated_buffers() const { return observer_.saturated_buffers(); }
    void count_lowered(std::uint32_t buffer) { observer_.count_lowered(buffer); }

    std::vector<PoolSizePoint> points() const { return curve_.points(); }
    double sample_rate() const { return curve_.sample_rate(); }
    std::size_t sampled_blocks() const { return curve_.sampled_blocks(); }

  private:
    static std::uint32_t checked_buffers(std::int64_t pool_buffers);

    PoolSizeCurve curve_;
    PoolObserver observer_;
};

} // namespace pg_cachectl
