// relation_split.cpp — the rule of relation_split.hpp, summed into an array.
#include "relation_split.hpp"

namespace pg_cachectl {

void RelationReads::add(const RelationReads &other) {
    read_blocks = saturating_sum(read_blocks, other.read_blocks);
    os_hit_blocks = saturating_sum(os_hit_blocks, other.os_hit_blocks);
    device_read_blocks = saturating_sum(device_read_blocks, other.device_read_blocks);
    unsplit_read_blocks = saturating_sum(unsplit_read_blocks, other.unsplit_read_blocks);
    device_read_bytes = saturating_sum(device_read_bytes, other.device_read_bytes);
}

void split_span_by_relation(const ReadSources &span, const std::int64_t *relation_blocks,
                            std::size_t relation_count, bool sources_known, RelationReads *shares) {
    if (shares == nullptr)
        throw InvalidArgument("a span's split needs a share for each party");
    split_span(span, relation_blocks, relation_count, sources_known,
               [shares](std::size_t party, const RelationReads &share) { shares[party].add(share); });
}

} // namespace pg_cachectl
