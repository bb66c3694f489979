// bridge_maps.cpp — the noexcept C functions of block_maps.h: the OS block
// map of a fork, maps against block lists, runs and drawings.
#include "pg_cachectl/block_maps.h"

#include "bitmap.hpp"
#include "block_drawing.hpp"
#include "block_lists.hpp"
#include "block_residency.hpp"
#include "bridge_capture.hpp"
#include "core_errors.hpp"
#include "fork_block_map.hpp"

#include <cstdio>
#include <memory>
#include <optional>
#include <span>

// The opaque handle of block_maps.h is the C++ job itself.
struct cachectl_os_map {
    pg_cachectl::ForkBlockMap job;
};

namespace {

using pg_cachectl::run_captured;

// A read-only view of a varbit-ordered map (BitmapView takes mutable bytes).
pg_cachectl::BitmapView map_view(const uint8_t *bits, int64_t bit_count) {
    if ((bits == nullptr && bit_count > 0) || bit_count < 0)
        throw pg_cachectl::InvalidArgument("a bit string is required");
    std::span<std::uint8_t> bytes(const_cast<std::uint8_t *>(bits),
                                  static_cast<std::size_t>(pg_cachectl::bitmap_bytes(bit_count)));
    return pg_cachectl::BitmapView(bytes, bit_count);
}

std::span<const std::uint32_t> block_span(const uint32_t *blocks, size_t count) {
    if (blocks == nullptr && count > 0)
        throw pg_cachectl::InvalidArgument("block numbers are required");
    return std::span<const std::uint32_t>(blocks, count);
}

} // namespace

extern "C" {

cachectl_os_map *cachectl_os_map_create(uint8_t *bits, int64_t bit_count, const char *base_path, int64_t segment_bytes,
                                        int64_t block_size, cachectl_os_engine engine, cachectl_error *error) noexcept {
    cachectl_os_map *created = nullptr;
    run_captured(error, [&] {
        if (base_path == nullptr || (bits == nullptr && bit_count > 0) || bit_count < 0)
            throw pg_cachectl::InvalidArgument("a path and a bit string are required");
        std::span<std::uint8_t> bytes(bits, static_cast<std::size_t>(pg_cachectl::bitmap_bytes(bit_count)));
        created = std::make_unique<cachectl_os_map>(cachectl_os_map{pg_cachectl::ForkBlockMap(
                                                        pg_cachectl::BitmapView(bytes, bit_count), base_path,
                                                        segment_bytes, block_size, pg_cachectl::engine_choice(engine))})
                      .release();
        return CACHECTL_OK;
    });
    return created;
}

void cachectl_os_map_free(cachectl_os_map *map) noexcept {
    std::unique_ptr<cachectl_os_map> owned(map);
}

cachectl_status cachectl_os_map_step(cachectl_os_map *map, cachectl_step *step, cachectl_error *error) noexcept {
    return run_captured(error, [&] {
        if (map == nullptr || step == nullptr)
            throw pg_cachectl::InvalidArgument("a map job and a step are required");
        step->finished = map->job.step();
        step->delay_us = 0;
        return CACHECTL_OK;
    });
}

bool cachectl_os_map_os_dirty_pages(const cachectl_os_map *map, int64_t *os_dirty_pages) noexcept {
    const std::optional<std::int64_t> counted = map != nullptr ? map->job.os_dirty_pages() : std::nullopt;
    if (os_dirty_pages != nullptr)
        *os_dirty_pages = counted.value_or(0);
    return counted.has_value();
}

cachectl_status cachectl_draw_block_map(const uint8_t *bits, int64_t bit_count, int width, char *out, size_t out_size,
                                        cachectl_error *error) noexcept {
    return run_captured(error, [&] {
        if ((bits == nullptr && bit_count > 0) || bit_count < 0 || out == nullptr || out_size == 0)
            throw pg_cachectl::InvalidArgument("a bit string and room for the drawing are required");
        std::span<std::uint8_t> bytes(const_cast<std::uint8_t *>(bits),
                                      static_cast<std::size_t>(pg_cachectl::bitmap_bytes(bit_count)));
        const std::string drawing = pg_cachectl::draw_block_map(pg_cachectl::BitmapView(bytes, bit_count), width);
        if (drawing.size() >= out_size)
            throw pg_cachectl::InvalidArgument("the drawing does not fit the room given");
        std::snprintf(out, out_size, "%s", drawing.c_str());
        return CACHECTL_OK;
    });
}

cachectl_status cachectl_compare_layers(const uint32_t *shared_blocks, size_t count, const uint8_t *os_bits,
                                        int64_t bit_count, cachectl_layer_counts *counts,
                                        cachectl_error *error) noexcept {
    return run_captured(error, [&] {
        if (counts == nullptr)
            throw pg_cachectl::InvalidArgument("a result is required");
        const pg_cachectl::LayerCounts found = pg_cachectl::compare_layers(
            block_span(shared_blocks, count), map_view(os_bits, bit_count), 0, bit_count);
        *counts = cachectl_layer_counts{found.both_blocks, found.shared_only_blocks, found.os_only_blocks,
                                        found.neither_blocks};
        return CACHECTL_OK;
    });
}

cachectl_status cachectl_os_pages_of_blocks(const char *base_path, int64_t segment_bytes, int64_t block_size,
                                            const uint32_t *blocks, size_t count, cachectl_os_engine engine,
                                            int64_t *os_pages, cachectl_error *error) noexcept {
    return run_captured(error, [&] {
        if (base_path == nullptr || os_pages == nullptr)
            throw pg_cachectl::InvalidArgument("a path and a result are required");
        *os_pages = pg_cachectl::os_pages_of_blocks(base_path, segment_bytes, block_size, block_span(blocks, count),
                                                    pg_cachectl::engine_choice(engine));
        return CACHECTL_OK;
    });
}

cachectl_status cachectl_draw_two_layers(const uint32_t *shared_blocks, size_t count, const uint8_t *os_bits,
                                         int64_t bit_count, int width, char *out, size_t out_size,
                                         cachectl_error *error) noexcept {
    return run_captured(error, [&] {
        if (out == nullptr || out_size == 0)
            throw pg_cachectl::InvalidArgument("room for the drawing is required");
        const std::string drawing =
            pg_cachectl::draw_two_layers(block_span(shared_blocks, count), map_view(os_bits, bit_count), width);
        if (drawing.size() >= out_size)
            throw pg_cachectl::InvalidArgument("the drawing does not fit the room given");
        std::snprintf(out, out_size, "%s", drawing.c_str());
        return CACHECTL_OK;
    });
}

cachectl_status cachectl_map_runs(const uint8_t *bits, int64_t bit_count, cachectl_block_range *runs, size_t capacity,
                                  size_t *count, cachectl_error *error) noexcept {
    return run_captured(error, [&] {
        if (count == nullptr)
            throw pg_cachectl::InvalidArgument("a count is required");
        const std::vector<pg_cachectl::BlockRange> found = map_view(bits, bit_count).runs();
        *count = found.size();
        if (runs != nullptr)
            for (size_t index = 0; index < found.size() && index < capacity; ++index)
                runs[index] = cachectl_block_range{found[index].first, found[index].count};
        return CACHECTL_OK;
    });
}

} // extern "C"
