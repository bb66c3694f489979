// bridge_both_layers.cpp — the noexcept C functions of bridge.h that compare
// the two layers: block numbers from the buffer pool against OS maps.
#include "pg_cachectl/bridge.h"

#include "bitmap.hpp"
#include "block_lists.hpp"
#include "block_residency.hpp"
#include "bridge_capture.hpp"
#include "buffer_scan_handle.hpp"
#include "core_errors.hpp"

#include <cstdio>
#include <span>

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

cachectl_status cachectl_buffer_scan_collect_blocks(cachectl_buffer_scan *scan, cachectl_error *error) noexcept {
    return run_captured(error, [&] {
        if (scan == nullptr)
            throw pg_cachectl::InvalidArgument("a scan is required");
        scan->scan.collect_blocks();
        return CACHECTL_OK;
    });
}

bool cachectl_buffer_scan_count_resident_block(cachectl_buffer_scan *scan, int slot, uint32_t block, bool dirty,
                                               bool pinned, int usage_count) noexcept {
    if (scan == nullptr)
        return false;
    return scan->scan.count_resident_block(slot, block, dirty, pinned, usage_count);
}

bool cachectl_buffer_scan_row_blocks(const cachectl_buffer_scan *scan, size_t index, const uint32_t **blocks,
                                     size_t *count) noexcept {
    if (scan == nullptr || blocks == nullptr || count == nullptr || index >= scan->rows.size() ||
        !scan->scan.blocks_complete())
        return false;
    const pg_cachectl::BufferScan::Row &row = scan->rows[index];
    const std::vector<std::uint32_t> &found = scan->scan.blocks_of(row.relation_id, row.fork);
    *blocks = found.data();
    *count = found.size();
    return true;
}

cachectl_status cachectl_count_blocks_in_map(const uint32_t *blocks, size_t count, const uint8_t *bits,
                                             int64_t bit_count, int64_t *found, cachectl_error *error) noexcept {
    return run_captured(error, [&] {
        if (found == nullptr)
            throw pg_cachectl::InvalidArgument("a result is required");
        *found = pg_cachectl::count_blocks_in_map(block_span(blocks, count), map_view(bits, bit_count));
        return CACHECTL_OK;
    });
}

cachectl_status cachectl_cached_pages_of_blocks(const char *base_path, int64_t segment_bytes, int64_t block_size,
                                                const uint32_t *blocks, size_t count, cachectl_os_engine engine,
                                                int64_t *pages, cachectl_error *error) noexcept {
    return run_captured(error, [&] {
        if (base_path == nullptr || pages == nullptr)
            throw pg_cachectl::InvalidArgument("a path and a result are required");
        *pages = pg_cachectl::cached_pages_of_blocks(base_path, segment_bytes, block_size, block_span(blocks, count),
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
