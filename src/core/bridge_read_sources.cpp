// bridge_read_sources.cpp — the noexcept C functions of read_sources.h.
#include "pg_cachectl/read_sources.h"

#include "bridge_capture.hpp"
#include "core_errors.hpp"
#include "read_sources.hpp"
#include "relation_split.hpp"

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

// Adds a share to a C total (once per sampled span that mixed sources or parties).
void add_to_c(cachectl_relation_reads &total, const pg_cachectl::RelationReads &share) {
    const cachectl_relation_reads c_share{share.read_blocks, share.os_hit_blocks, share.device_read_blocks,
                                          share.unsplit_read_blocks, share.device_read_bytes};
    cachectl_relation_reads_add(&total, &c_share);
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

cachectl_status cachectl_read_sources_split(const cachectl_read_sources *span, const int64_t *relation_blocks,
                                            size_t relation_count, bool sources_known,
                                            cachectl_relation_reads *const *totals, cachectl_error *error) noexcept {
    return pg_cachectl::run_captured(error, [&] {
        if (span == nullptr || totals == nullptr)
            throw pg_cachectl::InvalidArgument("a span and a total for each party are required");
        pg_cachectl::split_span(from_c(*span), relation_blocks, relation_count, sources_known,
                                [totals](size_t party, const pg_cachectl::RelationReads &share) {
                                    if (totals[party] == nullptr)
                                        throw pg_cachectl::InvalidArgument("a party's total is missing");
                                    add_to_c(*totals[party], share);
                                });
        return CACHECTL_OK;
    });
}

} // extern "C"
