// pool_size_curve.cpp — miniature pools of each candidate size, fed the
// sampled accesses.
#include "pool_size_curve.hpp"

#include "core_errors.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace pg_cachectl {

PoolSizeCurve::PoolSizeCurve(std::int64_t pool_buffers, std::vector<double> size_ratios, double rate,
                             std::size_t max_sampled_blocks)
    : pool_buffers_(pool_buffers), sample_(rate, max_sampled_blocks) {
    if (pool_buffers < 1)
        throw InvalidArgument("the pool must have at least one buffer");
    for (const double ratio : size_ratios)
        if (!(ratio > 0) || !std::isfinite(ratio))
            throw InvalidArgument("a size ratio must be positive and finite");
    if (std::find(size_ratios.begin(), size_ratios.end(), 1.0) == size_ratios.end())
        size_ratios.push_back(1.0);
    std::sort(size_ratios.begin(), size_ratios.end());
    size_ratios.erase(std::unique(size_ratios.begin(), size_ratios.end()), size_ratios.end());
    sizes_.reserve(size_ratios.size());
    for (const double ratio : size_ratios)
        sizes_.push_back(Size{ratio, ClockSimulation(miniature_buffers(ratio))});
}

std::size_t PoolSizeCurve::miniature_buffers(double ratio) const {
    // The pool at this size holds ratio x NBuffers blocks, of which the
    // sample's share is followed; never more than the sample can hold (a
    // miniature that large evicts nothing, and memory stays bounded).
    const double buffers = ratio * static_cast<double>(pool_buffers_) * sample_.rate();
    const double most = static_cast<double>(sample_.max_blocks());
    return static_cast<std::size_t>(std::llround(std::min(buffers, most)));
}

void PoolSizeCurve::access(std::uint64_t block_hash, std::uint64_t group) {
    if (!sample_.admits(block_hash))
        return;
    const std::vector<std::uint64_t> dropped = sample_.follow(block_hash);
    if (!dropped.empty()) {
        // The rate went down: each miniature shrinks to the new rate and
        // forgets the blocks that left the sample.
        for (Size &size : sizes_) {
            for (const std::uint64_t key : dropped)
                size.pool.forget(key);
            if (const std::size_t buffers = miniature_buffers(size.ratio); buffers != size.pool.buffers())
                size.pool.resize(buffers);
        }
        if (!sample_.admits(block_hash))
            return;
    }
    const double weight = 1.0 / sample_.rate();
    GroupCounts &counts = groups_[group];
    if (counts.accesses.empty()) {
        counts.accesses.assign(sizes_.size(), 0.0);
        counts.hits.assign(sizes_.size(), 0.0);
    }
    for (std::size_t index = 0; index < sizes_.size(); ++index) {
        Size &size = sizes_[index];
        size.accesses += weight;
        counts.accesses[index] += weight;
        if (size.pool.access(block_hash)) {
            size.hits += weight;
            counts.hits[index] += weight;
        }
    }
}

void PoolSizeCurve::restart_counts() {
    for (Size &size : sizes_)
        size.accesses = size.hits = 0;
    groups_.clear();
}

std::vector<PoolSizePoint> PoolSizeCurve::points() const {
    std::vector<PoolSizePoint> points;
    points.reserve(sizes_.size());
    for (const Size &size : sizes_)
        points.push_back(PoolSizePoint{size.ratio, static_cast<std::int64_t>(std::llround(size.ratio * pool_buffers_)),
                                       size.accesses, size.hits});
    return points;
}

std::vector<PoolSizePoint> PoolSizeCurve::group_points(std::uint64_t group) const {
    std::vector<PoolSizePoint> points = this->points();
    const auto found = groups_.find(group);
    for (std::size_t index = 0; index < points.size(); ++index) {
        points[index].accesses = found == groups_.end() ? 0 : found->second.accesses[index];
        points[index].hits = found == groups_.end() ? 0 : found->second.hits[index];
    }
    return points;
}

std::vector<std::uint64_t> PoolSizeCurve::groups() const {
    std::vector<std::uint64_t> keys;
    keys.reserve(groups_.size());
    for (const auto &[group, counts] : groups_)
        keys.push_back(group);
    std::sort(keys.begin(), keys.end());
    return keys;
}

std::vector<double> anchored_hit_ratios(const std::vector<PoolSizePoint> &points, double measured_hits,
                                        double measured_accesses, double scale) {
    const auto today =
        std::find_if(points.begin(), points.end(), [](const PoolSizePoint &point) { return point.size_ratio == 1.0; });
    if (today == points.end())
        throw InvalidArgument("the curve has no point at today's size");
    if (!(measured_hits >= 0) || !(measured_accesses >= measured_hits) || !(scale >= 0))
        throw InvalidArgument("measured hits must be within [0, accesses] and the scale not negative");
    std::vector<double> ratios;
    ratios.reserve(points.size());
    for (const PoolSizePoint &point : points) {
        if (measured_accesses == 0) {
            ratios.push_back(std::numeric_limits<double>::quiet_NaN());
            continue;
        }
        const double hits = measured_hits + scale * (point.hits - today->hits);
        ratios.push_back(std::clamp(hits, 0.0, measured_accesses) / measured_accesses);
    }
    return ratios;
}

double interpolate_in_log_size(const std::vector<PoolSizePoint> &points, const std::vector<double> &values,
                               double size_ratio) {
    if (points.size() != values.size())
        throw InvalidArgument("one value per point");
    for (std::size_t index = 0; index < points.size(); ++index) {
        if (points[index].size_ratio == size_ratio)
            return values[index];
        if (index > 0 && points[index - 1].size_ratio < size_ratio && size_ratio < points[index].size_ratio) {
            const double low = std::log2(points[index - 1].size_ratio);
            const double high = std::log2(points[index].size_ratio);
            const double at = (std::log2(size_ratio) - low) / (high - low);
            return values[index - 1] + at * (values[index] - values[index - 1]);
        }
    }
    return std::numeric_limits<double>::quiet_NaN();
}

} // namespace pg_cachectl
