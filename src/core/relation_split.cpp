// relation_split.cpp — the rule of relation_split.hpp.
#include "relation_split.hpp"

#include "core_errors.hpp"
#include "saturating_sum.hpp"

#include <limits>

namespace pg_cachectl {

namespace {

enum class SpanSource { page_cache, device, mixed };

SpanSource source_of(const ReadSources &span) {
    if (span.device_read_blocks == 0)
        return SpanSource::page_cache;
    if (span.os_hit_blocks == 0)
        return SpanSource::device;
    return SpanSource::mixed;
}

} // namespace

void RelationReads::add(const RelationReads &other) {
    read_blocks = saturating_sum(read_blocks, other.read_blocks);
    os_hit_blocks = saturating_sum(os_hit_blocks, other.os_hit_blocks);
    device_read_blocks = saturating_sum(device_read_blocks, other.device_read_blocks);
    unsplit_read_blocks = saturating_sum(unsplit_read_blocks, other.unsplit_read_blocks);
    device_read_bytes = saturating_sum(device_read_bytes, other.device_read_bytes);
}

void split_span_by_relation(const ReadSources &span, const std::int64_t *relation_blocks,
                            std::size_t relation_count, bool sources_known, RelationReads *shares) {
    if (shares == nullptr || (relation_count > 0 && relation_blocks == nullptr))
        throw InvalidArgument("a span's split needs each relation's blocks and a share for each");
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
        RelationReads &whole = shares[last_with_blocks];
        whole.add(RelationReads{span.read_blocks, span.os_hit_blocks, span.device_read_blocks, 0,
                                span.device_read_bytes});
        return;
    }
    const SpanSource source = sources_known ? source_of(span) : SpanSource::mixed;
    std::int64_t bytes_left = span.device_read_bytes;
    for (std::size_t party = 0; party <= relation_count; party++) {
        const std::int64_t blocks = blocks_of(party);
        if (blocks == 0 && !(party == last_with_blocks && span.device_read_bytes > 0))
            continue;
        RelationReads share;
        share.read_blocks = blocks;
        if (source == SpanSource::page_cache)
            share.os_hit_blocks = blocks;
        else if (source == SpanSource::device)
            share.device_read_blocks = blocks;
        else
            share.unsplit_read_blocks = blocks;
        if (party == last_with_blocks)
            share.device_read_bytes = bytes_left;
        else {
            share.device_read_bytes = span.read_blocks == 0 ? 0 : static_cast<std::int64_t>(
                static_cast<__int128>(span.device_read_bytes) * blocks / span.read_blocks);
            bytes_left -= share.device_read_bytes;
        }
        shares[party].add(share);
    }
}

} // namespace pg_cachectl
