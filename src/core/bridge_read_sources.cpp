// bridge_read_sources.cpp — the noexcept C functions of read_sources.h.
#include "pg_cachectl/read_sources.h"

#include "bridge_capture.hpp"
#include "core_errors.hpp"
#include "read_sources.hpp"
#include "relation_split.hpp"

#include <array>
#include <vector>

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

pg_cachectl::RelationReads relation_reads_from_c(const cachectl_relation_reads &reads) {
    return pg_cachectl::RelationReads{reads.read_blocks, reads.os_hit_blocks, reads.device_read_blocks,
                                      reads.unsplit_read_blocks, reads.device_read_bytes};
}

void relation_reads_to_c(const pg_cachectl::RelationReads &reads, cachectl_relation_reads *out) {
    out->read_blocks = reads.read_blocks;
    out->os_hit_blocks = reads.os_hit_blocks;
    out->device_read_blocks = reads.device_read_blocks;
    out->unsplit_read_blocks = reads.unsplit_read_blocks;
    out->device_read_bytes = reads.device_read_bytes;
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

cachectl_status cachectl_read_sources_split(const cachectl_read_sources *span, const int64_t *relation_blocks,
                                            size_t relation_count, bool sources_known,
                                            cachectl_relation_reads *shares, cachectl_error *error) noexcept {
    return pg_cachectl::run_captured(error, [&] {
        if (span == nullptr || shares == nullptr)
            throw pg_cachectl::InvalidArgument("a span and its shares are required");
        // called once per sampled read: a node's few relations split on the stack, no allocation
        constexpr size_t on_stack = 16;
        std::array<pg_cachectl::RelationReads, on_stack> small{};
        std::vector<pg_cachectl::RelationReads> large;
        pg_cachectl::RelationReads *split = small.data();
        if (relation_count + 1 > on_stack) {
            large.resize(relation_count + 1);
            split = large.data();
        }
        for (size_t i = 0; i <= relation_count; i++)
            split[i] = relation_reads_from_c(shares[i]);
        pg_cachectl::split_span_by_relation(from_c(*span), relation_blocks, relation_count, sources_known, split);
        for (size_t i = 0; i <= relation_count; i++)
            relation_reads_to_c(split[i], &shares[i]);
        return CACHECTL_OK;
    });
}

void cachectl_relation_reads_add(cachectl_relation_reads *total, const cachectl_relation_reads *other) noexcept {
    if (total == nullptr || other == nullptr)
        return;
    pg_cachectl::RelationReads sum = relation_reads_from_c(*total);
    sum.add(relation_reads_from_c(*other));
    relation_reads_to_c(sum, total);
}

} // extern "C"
