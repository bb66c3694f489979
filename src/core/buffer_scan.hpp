// buffer_scan.hpp — the set of relation forks one pass over the buffer pool
// looks for, and what the pass found there, per relation and fork.
//
// The shim's C loop asks match() for every buffer (so it must be cheap and
// never throw) and reports each outcome with count_*().
#pragma once
#include "server_free.hpp"

#include <boost/container/flat_map.hpp>

#include <array>
#include <compare>
#include <cstdint>
#include <vector>

namespace pg_cachectl {

// Where a relation's pages live: tablespace, database, relfilenode.
struct RelationFileKey {
    std::uint32_t tablespace = 0;
    std::uint32_t database = 0;
    std::uint32_t file_number = 0;

    auto operator<=>(const RelationFileKey &) const = default;
};

// PostgreSQL's forks: main, fsm, vm, init.
constexpr int fork_count = 4;

// What one pass found for one fork of one relation.
struct ForkTally {
    std::int64_t size_blocks = -1; // the fork's size; -1: the fork is not wanted
    std::int64_t shared_blocks = 0;
    std::int64_t shared_dirty_blocks = 0;
    std::int64_t shared_pinned_blocks = 0;
    std::int64_t usage_count_sum = 0;
    std::int64_t buffers_evicted = 0;
    std::int64_t buffers_flushed = 0;
    std::int64_t buffers_skipped = 0;
};

enum class EvictionOutcome { evicted, flushed_and_evicted, skipped };

class BufferScan {
  public:
    // Wants the forks of a relation whose size_blocks entry is >= 0.  The
    // same file key may be wanted twice (the forks are merged).  Call before
    // seal().
    void want(const RelationFileKey &key, std::uint32_t relation_id,
              const std::array<std::int64_t, fork_count> &size_blocks);

    // Sorts the wanted set; match() works only after this.
    void seal();

    // The slot of (key, fork) if that fork is wanted, else -1.
    int match(const RelationFileKey &key, int fork) const noexcept;

    void count_resident(int slot, bool dirty, bool pinned, int usage_count) noexcept;

    // Also keep the block numbers of resident buffers (for status(),
    // snapshots): call before seal(), then count_resident_block() per buffer.
    void collect_blocks();
    // count_resident() and the block's number; false if memory ran out (the
    // count is kept, the block number lost: blocks_complete() tells).
    bool count_resident_block(int slot, std::uint32_t block, bool dirty, bool pinned, int usage_count) noexcept;
    bool blocks_complete() const { return blocks_complete_; }
    // The sorted block numbers found for a row's fork (after rows()).
    const std::vector<std::uint32_t> &blocks_of(std::uint32_t relation_id, int fork) const noexcept;
    // Those of them that were hot: their buffer's usage count at least
    // hot_usage_count (used again since it was read, or since the clock
    // sweep last passed it), sorted.  A load that cannot bring back a whole
    // snapshot brings these first.
    static constexpr int hot_usage_count = 2;
    const std::vector<std::uint32_t> &hot_blocks_of(std::uint32_t relation_id, int fork) const noexcept;
    void count_eviction(int slot, EvictionOutcome outcome) noexcept;

    // One row per wanted fork, in (relation id, fork) order.
    struct Row {
        std::uint32_t relation_id;
        int fork;
        ForkTally tally;
    };
    std::vector<Row> rows() const;

    std::size_t relation_count() const { return keys_.size(); }

  private:
    struct WantedRelation {
        std::uint32_t relation_id = 0;
        std::array<ForkTally, fork_count> forks;
    };
    // What want() was told, kept small until seal() sorts it (a relation's
    // tallies are ten times its size).
    struct PendingRelation {
        RelationFileKey key;
        std::uint32_t relation_id;
        std::array<std::int64_t, fork_count> size_blocks;
    };

    std::vector<PendingRelation> pending_;
    // Sorted file keys and, at the same index, their relation: the keys
    // apart, so that the binary search per buffer walks 12-byte entries
    // (1.2 MB for 100,000 relations) rather than the tallies' 27 MB.
    std::vector<RelationFileKey> keys_;
    std::vector<WantedRelation> wanted_;
    // The last key match() found: a relation's buffers often come one after
    // another in the pool, and each buffer is matched twice.
    mutable std::size_t last_match_ = 0;
    mutable bool has_last_match_ = false;
    bool sealed_ = false;
    bool collect_blocks_ = false;
    bool blocks_complete_ = true;
    // by slot; sorted by rows()
    mutable std::vector<std::vector<std::uint32_t>> blocks_;
    mutable std::vector<std::vector<std::uint32_t>> hot_blocks_;
    // relation id and fork -> slot, for blocks_of()
    mutable boost::container::flat_map<std::pair<std::uint32_t, int>, std::size_t> slot_of_row_;
};

} // namespace pg_cachectl
