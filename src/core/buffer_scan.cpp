// buffer_scan.cpp — the wanted set of a buffer-pool pass and its tallies.
#include "buffer_scan.hpp"

#include "block_lists.hpp"
#include "core_errors.hpp"

#include <algorithm>
#include <numeric>

namespace pg_cachectl {

void BufferScan::want(const RelationFileKey &key, std::uint32_t relation_id,
                      const std::array<std::int64_t, fork_count> &size_blocks) {
    if (sealed_)
        throw InvalidArgument("relations must be wanted before the scan is sealed");
    pending_.push_back(PendingRelation{key, relation_id, size_blocks});
}

void BufferScan::seal() {
    // Sort once and build the key and relation arrays in one go: inserting
    // one by one would cost O(n^2) moves for a set of thousands of relations.
    std::stable_sort(pending_.begin(), pending_.end(),
                     [](const auto &left, const auto &right) { return left.key < right.key; });
    keys_.reserve(pending_.size());
    wanted_.reserve(pending_.size());
    for (const PendingRelation &entry : pending_) {
        if (!keys_.empty() && keys_.back() == entry.key) {
            // the same file wanted twice: its largest size of each fork
            for (int fork = 0; fork < fork_count; ++fork) {
                ForkTally &tally = wanted_.back().forks[fork];
                tally.size_blocks = std::max(tally.size_blocks, entry.size_blocks[fork]);
            }
            continue;
        }
        WantedRelation wanted;
        wanted.relation_id = entry.relation_id;
        for (int fork = 0; fork < fork_count; ++fork)
            wanted.forks[fork].size_blocks = entry.size_blocks[fork];
        keys_.push_back(entry.key);
        wanted_.push_back(wanted);
    }
    pending_.clear();
    pending_.shrink_to_fit();
    sealed_ = true;
    if (collect_blocks_) {
        blocks_.resize(keys_.size() * fork_count);
        hot_blocks_.resize(keys_.size() * fork_count);
    }
}

void BufferScan::collect_blocks() {
    if (sealed_)
        throw InvalidArgument("blocks must be asked for before the scan is sealed");
    collect_blocks_ = true;
}

bool BufferScan::count_resident_block(int slot, std::uint32_t block, bool dirty, bool pinned,
                                      int usage_count) noexcept {
    count_resident(slot, dirty, pinned, usage_count);
    if (slot < 0 || !collect_blocks_)
        return true;
    try {
        blocks_[static_cast<std::size_t>(slot)].push_back(block);
        if (usage_count >= hot_usage_count)
            hot_blocks_[static_cast<std::size_t>(slot)].push_back(block);
        return true;
    } catch (...) {
        blocks_complete_ = false;
        return false;
    }
}

const std::vector<std::uint32_t> &BufferScan::blocks_of(std::uint32_t relation_id, int fork) const noexcept {
    static const std::vector<std::uint32_t> none;
    auto found = slot_of_row_.find(std::make_pair(relation_id, fork));
    if (found == slot_of_row_.end() || found->second >= blocks_.size())
        return none;
    return blocks_[found->second];
}

const std::vector<std::uint32_t> &BufferScan::hot_blocks_of(std::uint32_t relation_id, int fork) const noexcept {
    static const std::vector<std::uint32_t> none;
    auto found = slot_of_row_.find(std::make_pair(relation_id, fork));
    if (found == slot_of_row_.end() || found->second >= hot_blocks_.size())
        return none;
    return hot_blocks_[found->second];
}

int BufferScan::match(const RelationFileKey &key, int fork) const noexcept {
    if (fork < 0 || fork >= fork_count)
        return -1;
    std::size_t index;
    if (has_last_match_ && keys_[last_match_] == key) {
        index = last_match_;
    } else {
        auto found = std::lower_bound(keys_.begin(), keys_.end(), key);
        if (found == keys_.end() || *found != key)
            return -1;
        index = static_cast<std::size_t>(found - keys_.begin());
        last_match_ = index;
        has_last_match_ = true;
    }
    if (wanted_[index].forks[fork].size_blocks < 0)
        return -1;
    return static_cast<int>(index) * fork_count + fork;
}

void BufferScan::count_resident(int slot, bool dirty, bool pinned, int usage_count) noexcept {
    if (slot < 0)
        return;
    ForkTally &tally = wanted_[static_cast<std::size_t>(slot / fork_count)].forks[slot % fork_count];
    tally.shared_blocks++;
    tally.shared_dirty_blocks += dirty ? 1 : 0;
    tally.shared_pinned_blocks += pinned ? 1 : 0;
    tally.usage_count_sum += usage_count;
}

void BufferScan::count_eviction(int slot, EvictionOutcome outcome) noexcept {
    if (slot < 0)
        return;
    ForkTally &tally = wanted_[static_cast<std::size_t>(slot / fork_count)].forks[slot % fork_count];
    switch (outcome) {
    case EvictionOutcome::flushed_and_evicted:
        tally.buffers_flushed++;
        [[fallthrough]];
    case EvictionOutcome::evicted:
        tally.buffers_evicted++;
        break;
    case EvictionOutcome::skipped:
        tally.buffers_skipped++;
        break;
    }
}

std::vector<BufferScan::Row> BufferScan::rows() const {
    // The relations are kept in file order; rows and the block index are
    // wanted in relation order: one sort of the positions gives both.
    std::vector<std::size_t> by_relation(wanted_.size());
    std::iota(by_relation.begin(), by_relation.end(), std::size_t{0});
    std::stable_sort(by_relation.begin(), by_relation.end(), [this](std::size_t left, std::size_t right) {
        return wanted_[left].relation_id < wanted_[right].relation_id;
    });

    std::vector<Row> rows;
    rows.reserve(wanted_.size() * fork_count);
    std::vector<std::pair<std::pair<std::uint32_t, int>, std::size_t>> slots;
    if (collect_blocks_)
        slots.reserve(wanted_.size() * fork_count);
    for (std::size_t index : by_relation) {
        const WantedRelation &relation = wanted_[index];
        for (int fork = 0; fork < fork_count; ++fork) {
            const std::size_t slot = index * fork_count + static_cast<std::size_t>(fork);
            if (relation.forks[fork].size_blocks >= 0)
                rows.push_back(Row{relation.relation_id, fork, relation.forks[fork]});
            if (!collect_blocks_ || slot >= blocks_.size())
                continue;
            sort_block_numbers(blocks_[slot]);
            sort_block_numbers(hot_blocks_[slot]);
            const auto key = std::make_pair(relation.relation_id, fork);
            // a relation id under two files: the last in file order, as before
            if (!slots.empty() && slots.back().first == key)
                slots.back().second = slot;
            else
                slots.emplace_back(key, slot);
        }
    }
    // built sorted in one go: 400,000 inserts one by one into a flat map move O(n^2)
    slot_of_row_ = decltype(slot_of_row_)(boost::container::ordered_unique_range, slots.begin(), slots.end());
    return rows;
}

} // namespace pg_cachectl
