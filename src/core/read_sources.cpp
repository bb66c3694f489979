// read_sources.cpp — the split of a span's kernel reads (read_sources.hpp).
#include "read_sources.hpp"

#include "core_errors.hpp"
#include "saturating_sum.hpp"

#include <algorithm>
#include <limits>

namespace pg_cachectl {

void ReadSources::add_span(std::int64_t span_read_blocks, std::int64_t span_device_bytes, std::int64_t block_size,
                           std::int64_t &unclaimed_device_bytes) {
    if (span_read_blocks < 0 || span_device_bytes < 0 || block_size <= 0 || unclaimed_device_bytes < 0)
        throw InvalidArgument("a read span's counters must not be negative");
    const std::int64_t available = saturating_sum(unclaimed_device_bytes, span_device_bytes);
    // the blocks the bytes cover, rounded up
    const std::int64_t covered = available / block_size + (available % block_size != 0 ? 1 : 0);
    const std::int64_t device_blocks = std::min(span_read_blocks, covered);
    unclaimed_device_bytes = std::max<std::int64_t>(0, available - device_blocks * block_size);
    read_blocks = saturating_sum(read_blocks, span_read_blocks);
    device_read_blocks = saturating_sum(device_read_blocks, device_blocks);
    os_hit_blocks = saturating_sum(os_hit_blocks, span_read_blocks - device_blocks);
    device_read_bytes = saturating_sum(device_read_bytes, span_device_bytes);
}

void ReadSources::add(const ReadSources &other) {
    read_blocks = saturating_sum(read_blocks, other.read_blocks);
    os_hit_blocks = saturating_sum(os_hit_blocks, other.os_hit_blocks);
    device_read_blocks = saturating_sum(device_read_blocks, other.device_read_blocks);
    device_read_bytes = saturating_sum(device_read_bytes, other.device_read_bytes);
}

} // namespace pg_cachectl
