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
#include "read_sources.hpp"
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

// Adds the span's shares to shares[0 .. relation_count] (the last is
// other's); relation_blocks holds each relation's blocks in the span (>= 0).
// sources_known false (other processes made the reads: io_method = worker)
// counts every block as unsplit.
void split_span_by_relation(const ReadSources &span, const std::int64_t *relation_blocks,
                            std::size_t relation_count, bool sources_known, RelationReads *shares);

} // namespace pg_cachectl
