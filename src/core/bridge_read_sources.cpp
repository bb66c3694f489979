// bridge_read_sources.cpp — the noexcept C functions of read_sources.h.
#include "pg_cachectl/read_sources.h"

#include "bridge_capture.hpp"
#include "core_errors.hpp"
#include "read_sources.hpp"

namespace {

pg_cachectl::ReadSources from_c(const cachectl_read_sources &tally) {
    pg_cachectl::ReadSources sources;
    sources.read_blocks = tally.read_blocks;
    sources.os_hit_blocks = tally.os_hit_blocks;
    sources.device_read_blocks = tally.device_read_blocks;
    sources.device_read_bytes = tally.device_read_bytes;
    return sources;
}

void to_c(const pg_cachectl::ReadSources &sources, cachectl_read_sources *tally) {
    tally->read_blocks = sources.read_blocks;
    tally->os_hit_blocks = sources.os_hit_blocks;
    tally->device_read_blocks = sources.device_read_blocks;
    tally->device_read_bytes = sources.device_read_bytes;
}

} // namespace

extern "C" {

cachectl_status cachectl_read_sources_add_span(cachectl_read_sources *tally, int64_t *unclaimed_device_bytes,
                                               int64_t read_blocks, int64_t device_bytes, int64_t block_size,
                                               cachectl_error *error) noexcept {
    return pg_cachectl::run_captured(error, [&] {
        if (tally == nullptr || unclaimed_device_bytes == nullptr)
            throw pg_cachectl::InvalidArgument("a tally and its readahead carry are required");
        pg_cachectl::ReadSources sources = from_c(*tally);
        std::int64_t unclaimed = *unclaimed_device_bytes;
        sources.add_span(read_blocks, device_bytes, block_size, unclaimed);
        to_c(sources, tally);
        *unclaimed_device_bytes = unclaimed;
        return CACHECTL_OK;
    });
}

void cachectl_read_sources_add(cachectl_read_sources *tally, const cachectl_read_sources *other) noexcept {
    if (tally == nullptr || other == nullptr)
        return;
    pg_cachectl::ReadSources sources = from_c(*tally);
    sources.add(from_c(*other));
    to_c(sources, tally);
}

} // extern "C"
