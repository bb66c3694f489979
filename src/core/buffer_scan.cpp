// buffer_scan.cpp — the wanted set of a buffer-pool pass and its tallies.
#include "pg_cachectl/buffer_scan.hpp"

#include "pg_cachectl/core_errors.hpp"

#include <algorithm>

namespace pg_cachectl {

void BufferScan::want(const RelationFileKey &key, std::uint32_t relation_id,
                      const std::array<std::int64_t, fork_count> &blocks) {
    if (sealed_)
        throw InvalidArgument("relations must be wanted before the scan is sealed");
    WantedRelation wanted;
    wanted.relation_id = relation_id;
    for (int fork = 0; fork < fork_count; ++fork)
        wanted.forks[fork].blocks = blocks[fork];
    pending_.emplace_back(key, wanted);
}

void BufferScan::seal() {
    // Sort once and build the flat map in one go: inserting one by one would
    // cost O(n^2) moves for a set of thousands of relations.
    std::stable_sort(pending_.begin(), pending_.end(),
                     [](const auto &left, const auto &right) { return left.first < right.first; });
    std::vector<std::pair<RelationFileKey, WantedRelation>> unique;
    unique.reserve(pending_.size());
    for (auto &entry : pending_) {
        if (!unique.empty() && unique.back().first == entry.first) {
            for (int fork = 0; fork < fork_count; ++fork)
                unique.back().second.forks[fork].blocks =
                    std::max(unique.back().second.forks[fork].blocks, entry.second.forks[fork].blocks);
            continue;
        }
        unique.push_back(std::move(entry));
    }
    relations_ = RelationTable(boost::container::ordered_unique_range, unique.begin(), unique.end());
    pending_.clear();
    sealed_ = true;
}

int BufferScan::match(const RelationFileKey &key, int fork) const noexcept {
    if (fork < 0 || fork >= fork_count)
        return -1;
    auto found = relations_.find(key);
    if (found == relations_.end() || found->second.forks[fork].blocks < 0)
        return -1;
    return static_cast<int>(relations_.index_of(found)) * fork_count + fork;
}

void BufferScan::count_resident(int slot, bool dirty, bool pinned, int usage_count) noexcept {
    if (slot < 0)
        return;
    ForkTally &tally = relations_.nth(slot / fork_count)->second.forks[slot % fork_count];
    tally.buffers++;
    tally.dirty += dirty ? 1 : 0;
    tally.pinned += pinned ? 1 : 0;
    tally.usage_count_sum += usage_count;
}

void BufferScan::count_eviction(int slot, EvictionOutcome outcome) noexcept {
    if (slot < 0)
        return;
    ForkTally &tally = relations_.nth(slot / fork_count)->second.forks[slot % fork_count];
    switch (outcome) {
    case EvictionOutcome::flushed_and_evicted:
        tally.flushed++;
        [[fallthrough]];
    case EvictionOutcome::evicted:
        tally.evicted++;
        break;
    case EvictionOutcome::skipped:
        tally.skipped++;
        break;
    }
}

std::vector<BufferScan::Row> BufferScan::rows() const {
    std::vector<Row> rows;
    for (const auto &[key, relation] : relations_)
        for (int fork = 0; fork < fork_count; ++fork)
            if (relation.forks[fork].blocks >= 0)
                rows.push_back(Row{relation.relation_id, fork, relation.forks[fork]});
    std::sort(rows.begin(), rows.end(), [](const Row &left, const Row &right) {
        return left.relation_id != right.relation_id ? left.relation_id < right.relation_id : left.fork < right.fork;
    });
    return rows;
}

} // namespace pg_cachectl
