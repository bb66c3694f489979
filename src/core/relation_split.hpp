// relation_split.hpp — one sampled span's reads shared between the relations
// a plan node reads (a table and its index, a table and the indexes an
// INSERT updates), for the cumulative per-relation counters.
//
// PostgreSQL counts, per relation, the blocks it asked the kernel for
// (pg_stat's fetched less hit); the kernel counts the device bytes of the
// whole process only.  So the blocks of a span are shared exactly by the
// relation counts, and their source exactly where there is one to tell:
//   - one party read all the span's blocks: it takes the span whole;
//   - the span's blocks came from one source (all page-cache hits, or all
//     device reads): each party's blocks came from it;
//   - otherwise each party's blocks are counted as unsplit: which of them
//     the device read cannot be known (nor any, when other processes made
//     the reads: io_method = worker).
// Device bytes of a span shared by several parties go to them in
// proportion to their blocks (the remainder of the division to the last).
// The blocks no relation count claims (temporary files, catalogs, TOAST,
// nested queries) are the last party, "other"; when the relation counts
// claim more blocks than the span read (a read stream counts a block when
// it pins it and reads it in a later span), the whole span is other's.
#pragma once
#include "core_errors.hpp"
#include "read_sources.hpp"
#include "saturating_sum.hpp"
#include "server_free.hpp"

#include <cstddef>
#include <cstdint>

namespace pg_cachectl {

struct RelationReads {
    std::int64_t read_blocks = 0;         // = os_hit + device_read + unsplit
    std::int64_t os_hit_blocks = 0;
    std::int64_t device_read_blocks = 0;
    std::int64_t unsplit_read_blocks = 0; // source unknown: the span mixed both
    std::int64_t device_read_bytes = 0;

    void add(const RelationReads &other);
    bool operator==(const RelationReads &) const = default;
};

// Hands each party's share of the span to add_share(party, share), party
// 0 .. relation_count (the last is other's); relation_blocks holds each
// relation's blocks in the span (>= 0).  sources_known false (other
// processes made the reads: io_method = worker) counts every block as
// unsplit.  A template in the header: the executor runs it for every sampled
// read that was not all page-cache hits (those it splits inline:
// read_sources.h), adding the shares straight into its running totals.
template <typename AddShare>
void split_span(const ReadSources &span, const std::int64_t *relation_blocks, std::size_t relation_count,
                bool sources_known, AddShare &&add_share) {
    if (relation_count > 0 && relation_blocks == nullptr)
        throw InvalidArgument("a span's split needs each relation's blocks");
    if (span.read_blocks < 0 || span.device_read_bytes < 0 ||
        span.os_hit_blocks + span.device_read_blocks != span.read_blocks)
        throw InvalidArgument("a span's blocks must be its page-cache hits and device reads");
    std::int64_t claimed = 0;
    for (std::size_t i = 0; i < relation_count; i++) {
        if (relation_blocks[i] < 0)
            throw InvalidArgument("a relation's blocks in a span must not be negative");
        claimed = saturating_sum(claimed, relation_blocks[i]);
    }
    const std::size_t other = relation_count;
    if (span.read_blocks == 0 && span.device_read_bytes == 0)
        return;

    // each party's blocks: the relations' counts, the rest to other
    auto blocks_of = [&](std::size_t party) -> std::int64_t {
        if (claimed > span.read_blocks)
            return party == other ? span.read_blocks : 0;
        return party == other ? span.read_blocks - claimed : relation_blocks[party];
    };
    std::size_t parties_with_blocks = 0;
    std::size_t last_with_blocks = other;
    for (std::size_t party = 0; party <= relation_count; party++)
        if (blocks_of(party) > 0) {
            parties_with_blocks++;
            last_with_blocks = party;
        }
    if (parties_with_blocks <= 1 && sources_known) {
        // one party read it all (or bytes came with no block: readahead, other's)
        add_share(last_with_blocks, RelationReads{span.read_blocks, span.os_hit_blocks, span.device_read_blocks, 0,
                                                  span.device_read_bytes});
        return;
    }
    // one source for the whole span tells each party's; a mix tells none
    const bool all_page_cache = sources_known && span.device_read_blocks == 0;
    const bool all_device = sources_known && !all_page_cache && span.os_hit_blocks == 0;
    std::int64_t bytes_left = span.device_read_bytes;
    for (std::size_t party = 0; party <= relation_count; party++) {
        const std::int64_t blocks = blocks_of(party);
        if (blocks == 0 && !(party == last_with_blocks && span.device_read_bytes > 0))
            continue;
        RelationReads share;
        share.read_blocks = blocks;
        if (all_page_cache)
            share.os_hit_blocks = blocks;
        else if (all_device)
            share.device_read_blocks = blocks;
        else
            share.unsplit_read_blocks = blocks;
        // bytes in proportion to blocks, the division's remainder to the last
        if (party == last_with_blocks)
            share.device_read_bytes = bytes_left;
        else if (span.device_read_bytes > 0) {
            share.device_read_bytes = static_cast<std::int64_t>(static_cast<__int128>(span.device_read_bytes) *
                                                                blocks / span.read_blocks);
            bytes_left -= share.device_read_bytes;
        }
        add_share(party, share);
    }
}

// The same, adding the shares to shares[0 .. relation_count].
void split_span_by_relation(const ReadSources &span, const std::int64_t *relation_blocks,
                            std::size_t relation_count, bool sources_known, RelationReads *shares);

} // namespace pg_cachectl
