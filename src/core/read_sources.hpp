// read_sources.hpp — where reads came from: the rule that splits the blocks
// PostgreSQL asked the kernel for into page-cache hits and device reads,
// from two counters taken over the same span of one process:
//   read_blocks   the blocks PostgreSQL read from the kernel (pgBufferUsage);
//   device_bytes  the bytes the kernel made the device read for the process
//                 (getrusage's ru_inblock × 512), readahead included.
// The device bytes of a span are first matched to its blocks, a block's
// worth each (a partial block still counts: that block went to the device);
// what is left over was read ahead for later reads, and is carried to the
// next spans, whose blocks it covers before any counts as a page-cache hit.
// So a cold sequential scan, whose reads the kernel serves from its own
// readahead, counts as device reads, not as page-cache hits; and a block
// counts as a page-cache hit only when no device read of this process is
// left unmatched to claim it.  The raw byte figure is kept whole beside the
// block counts: readahead never read is never hidden.
#pragma once
#include "server_free.hpp"

#include <cstdint>

namespace pg_cachectl {

struct ReadSources {
    std::int64_t read_blocks = 0;        // asked of the kernel
    std::int64_t os_hit_blocks = 0;      // served by the page cache
    std::int64_t device_read_blocks = 0; // covered by device reads
    std::int64_t device_read_bytes = 0;  // the raw figure, readahead included

    // One span's counters (each >= 0; InvalidArgument otherwise);
    // unclaimed_device_bytes carries the readahead between spans (the
    // process's, whichever tally the next span goes to).
    void add_span(std::int64_t span_read_blocks, std::int64_t span_device_bytes, std::int64_t block_size,
                  std::int64_t &unclaimed_device_bytes);
    // Another tally's spans (a child node's, a worker's).
    void add(const ReadSources &other);

    bool operator==(const ReadSources &) const = default;
};

} // namespace pg_cachectl
