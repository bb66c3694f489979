// pool_size_curve.hpp — the hit ratio shared buffers of other sizes would
// have given the accesses the server saw.  Accesses to sampled blocks
// (block_sample.hpp) go through one miniature clock pool per candidate size
// (clock_simulation.hpp), each of rate x size buffers; a sampled access
// counts 1/rate.  The curve is then anchored to the hit ratio the server
// measured over the same window (anchored_hit_ratios): only the differences
// between sizes come from the model.
#pragma once
#include "server_free.hpp"

#include "block_sample.hpp"
#include "clock_simulation.hpp"

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace pg_cachectl {

struct PoolSizePoint {
    double size_ratio = 0;    // pool size / today's
    std::int64_t buffers = 0; // pool size in buffers
    double accesses = 0;      // weighted sampled accesses
    double hits = 0;          // of which hits in this size's simulation
    double hit_ratio() const { return accesses > 0 ? hits / accesses : 0; }
};

class PoolSizeCurve {
  public:
    // pool_buffers: today's pool (NBuffers), >= 1.  size_ratios: the sizes to
    // simulate, as multiples of it, each > 0; 1 is added when missing (the
    // anchor).  rate and max_sampled_blocks as BlockSample's.
    PoolSizeCurve(std::int64_t pool_buffers, std::vector<double> size_ratios, double rate,
                  std::size_t max_sampled_blocks);

    // One access to a block by its identity hash, counted also for its
    // group (the sampler's: the block's relation); not sampled ones are
    // skipped (that is most of them: callers may test admits() first).
    void access(std::uint64_t block_hash, std::uint64_t group = 0);
    bool admits(std::uint64_t block_hash) const { return sample_.admits(block_hash); }

    // Sizes in increasing order.
    std::vector<PoolSizePoint> points() const;
    // The same for the accesses of one group (zero counts for a group never seen).
    std::vector<PoolSizePoint> group_points(std::uint64_t group) const;
    // Every group that had an access, in increasing order.
    std::vector<std::uint64_t> groups() const;
    double sample_rate() const { return sample_.rate(); }
    std::size_t sampled_blocks() const { return sample_.followed_blocks(); }

    // A new window of counts over the simulated pools as they are, the way
    // a statistics reset leaves shared buffers as they are: a window that
    // started over empty pools counted every sampled block's first access
    // as a miss at every size (0.06 at 4x in a 40 s window at 5,000 TPS).
    void restart_counts();

  private:
    struct Size {
        double ratio;
        ClockSimulation pool;
        double accesses = 0;
        double hits = 0;
    };
    // Per size (in sizes_' order): weighted accesses and hits of one group.
    struct GroupCounts {
        std::vector<double> accesses;
        std::vector<double> hits;
    };
    std::size_t miniature_buffers(double ratio) const;

    std::int64_t pool_buffers_;
    BlockSample sample_;
    std::vector<Size> sizes_;
    std::unordered_map<std::uint64_t, GroupCounts> groups_;
};

// The predicted hit ratio at each point, anchored to the measured hits and
// accesses of the same window: hits(size) = measured_hits + scale x
// (model hits(size) - model hits(1x)), clamped to [0, accesses].  At 1x it
// is the measured ratio exactly.  scale turns the model's weighted counts
// into the server's (1 when the sample saw what the counters count).
// Throws InvalidArgument without a 1x point or with negative inputs.
std::vector<double> anchored_hit_ratios(const std::vector<PoolSizePoint> &points, double measured_hits,
                                        double measured_accesses, double scale = 1.0);

// The value at `size_ratio`, linear in log2 of the size between the two
// points around it; outside the points' range, NaN (the model did not
// simulate it).  points sorted by size_ratio, values one per point.
double interpolate_in_log_size(const std::vector<PoolSizePoint> &points, const std::vector<double> &values,
                               double size_ratio);

} // namespace pg_cachectl
