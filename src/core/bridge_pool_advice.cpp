// bridge_pool_advice.cpp — the noexcept C functions of pool_advice.h.
#include "pg_cachectl/pool_advice.h"

#include "bridge_capture.hpp"
#include "core_errors.hpp"
#include "pool_advice.hpp"

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

// The handle the C side holds: the model and what the last round left for
// the caller to read.
struct cachectl_pool_advice {
    pg_cachectl::PoolAdvice model;
    std::vector<pg_cachectl::BufferReading> readings;
};

extern "C" {

cachectl_status cachectl_pool_advice_create(int64_t pool_buffers, const double *size_ratios, size_t size_count,
                                            double rate, size_t max_sampled_blocks, uint32_t full_read_every,
                                            uint64_t seed, cachectl_pool_advice **advice,
                                            cachectl_error *error) noexcept {
    return pg_cachectl::run_captured(error, [&] {
        if (advice == nullptr || (size_ratios == nullptr && size_count > 0))
            throw pg_cachectl::InvalidArgument("a place for the handle and the sizes are required");
        *advice = nullptr;
        std::vector<double> ratios(size_ratios, size_ratios + size_count);
        auto made = std::unique_ptr<cachectl_pool_advice>(new cachectl_pool_advice{
            pg_cachectl::PoolAdvice(pool_buffers, std::move(ratios), rate, max_sampled_blocks, full_read_every, seed),
            {}});
        *advice = made.release();
        return CACHECTL_OK;
    });
}

void cachectl_pool_advice_free(cachectl_pool_advice *advice) noexcept {
    delete advice;
}

cachectl_status cachectl_pool_advice_buffers_to_read(cachectl_pool_advice *advice, uint64_t hand, uint32_t *buffers,
                                                     size_t capacity, size_t *count, cachectl_error *error) noexcept {
    return pg_cachectl::run_captured(error, [&] {
        if (advice == nullptr || buffers == nullptr || count == nullptr)
            throw pg_cachectl::InvalidArgument("a handle, a buffer list and a count are required");
        const std::vector<std::uint32_t> wanted = advice->model.buffers_to_read(hand);
        if (wanted.size() > capacity)
            throw pg_cachectl::InvalidArgument("the buffer list must hold the whole pool");
        std::copy(wanted.begin(), wanted.end(), buffers);
        *count = wanted.size();
        return CACHECTL_OK;
    });
}

cachectl_status cachectl_pool_advice_observe(cachectl_pool_advice *advice, uint64_t hand,
                                             const cachectl_buffer_reading *readings, size_t reading_count,
                                             int64_t *told, const uint32_t **saturated, size_t *saturated_count,
                                             cachectl_error *error) noexcept {
    return pg_cachectl::run_captured(error, [&] {
        if (advice == nullptr || (readings == nullptr && reading_count > 0) || told == nullptr ||
            saturated == nullptr || saturated_count == nullptr)
            throw pg_cachectl::InvalidArgument("a handle, the readings and places for the results are required");
        advice->readings.clear();
        advice->readings.reserve(reading_count);
        for (size_t index = 0; index < reading_count; ++index)
            advice->readings.push_back(pg_cachectl::BufferReading{readings[index].buffer, readings[index].block_hash,
                                                                  readings[index].valid, readings[index].usage,
                                                                  readings[index].relation});
        *told = static_cast<int64_t>(advice->model.observe(hand, advice->readings));
        const std::vector<std::uint32_t> &at_cap = advice->model.saturated_buffers();
        *saturated = at_cap.data();
        *saturated_count = at_cap.size();
        return CACHECTL_OK;
    });
}

void cachectl_pool_advice_count_lowered(cachectl_pool_advice *advice, uint32_t buffer) noexcept {
    if (advice != nullptr)
        advice->model.count_lowered(buffer);
}

bool cachectl_pool_advice_wants_reading(cachectl_pool_advice *advice, uint32_t buffer, bool valid,
                                         uint64_t block_hash) noexcept {
    return advice != nullptr && advice->model.wants_reading(buffer, valid, block_hash);
}

void cachectl_pool_advice_recheck(cachectl_pool_advice *advice, uint32_t buffer) noexcept {
    if (advice != nullptr) {
        try {
            advice->model.recheck(buffer);
        } catch (...) {
            // out of memory for one more entry: the next full read covers it
        }
    }
}

void cachectl_pool_advice_restart_counts(cachectl_pool_advice *advice) noexcept {
    if (advice != nullptr)
        advice->model.restart_counts();
}

int64_t cachectl_pool_advice_followed_buffers(const cachectl_pool_advice *advice) noexcept {
    return advice == nullptr ? 0 : static_cast<int64_t>(advice->model.followed_buffers());
}

cachectl_status cachectl_pool_advice_relation_points(const cachectl_pool_advice *advice,
                                                     cachectl_relation_size_point *points, size_t capacity,
                                                     size_t *count, cachectl_error *error) noexcept {
    return pg_cachectl::run_captured(error, [&] {
        if (advice == nullptr || count == nullptr || (points == nullptr && capacity > 0))
            throw pg_cachectl::InvalidArgument("a handle and places for the points are required");
        const std::vector<std::uint64_t> relations = advice->model.relations();
        const std::size_t sizes = advice->model.points().size();
        *count = relations.size() * sizes;
        if (*count > capacity)
            throw pg_cachectl::InvalidArgument("room for every relation's points is required");
        std::size_t at = 0;
        for (const std::uint64_t relation : relations)
            for (const pg_cachectl::PoolSizePoint &point : advice->model.relation_points(relation))
                points[at++] = cachectl_relation_size_point{relation, point.size_ratio, point.accesses, point.hits};
        return CACHECTL_OK;
    });
}

cachectl_status cachectl_pool_advice_points(const cachectl_pool_advice *advice, cachectl_pool_size_point *points,
                                            size_t capacity, size_t *count, double *sample_rate,
                                            int64_t *sampled_blocks, cachectl_error *error) noexcept {
    return pg_cachectl::run_captured(error, [&] {
        if (advice == nullptr || points == nullptr || count == nullptr || sample_rate == nullptr ||
            sampled_blocks == nullptr)
            throw pg_cachectl::InvalidArgument("a handle and places for the points are required");
        const std::vector<pg_cachectl::PoolSizePoint> curve = advice->model.points();
        if (curve.size() > capacity)
            throw pg_cachectl::InvalidArgument("room for every point is required");
        for (size_t index = 0; index < curve.size(); ++index)
            points[index] = cachectl_pool_size_point{curve[index].size_ratio, curve[index].buffers,
                                                     curve[index].accesses, curve[index].hits};
        *count = curve.size();
        *sample_rate = advice->model.sample_rate();
        *sampled_blocks = static_cast<int64_t>(advice->model.sampled_blocks());
        return CACHECTL_OK;
    });
}

cachectl_status cachectl_pool_advice_predict(const cachectl_pool_size_point *points, size_t point_count,
                                             double measured_hits, double measured_accesses, double scale,
                                             double *hit_ratios, cachectl_error *error) noexcept {
    return pg_cachectl::run_captured(error, [&] {
        if ((points == nullptr || hit_ratios == nullptr) && point_count > 0)
            throw pg_cachectl::InvalidArgument("the points and room for their ratios are required");
        std::vector<pg_cachectl::PoolSizePoint> curve;
        curve.reserve(point_count);
        for (size_t index = 0; index < point_count; ++index)
            curve.push_back(pg_cachectl::PoolSizePoint{points[index].size_ratio, points[index].buffers,
                                                       points[index].accesses, points[index].hits});
        const std::vector<double> ratios =
            pg_cachectl::anchored_hit_ratios(curve, measured_hits, measured_accesses, scale);
        std::copy(ratios.begin(), ratios.end(), hit_ratios);
        return CACHECTL_OK;
    });
}

} // extern "C"
