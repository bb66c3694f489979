// block_slot_map.hpp — block key to buffer index, for the miniature pools
// (clock_simulation.hpp).  Every sampled access goes through one lookup per
// simulated size, and every miss through an erase and an insert: a node-based
// std::unordered_map spent a third of the sampler's CPU there in malloc and
// pointer chasing.  This is open addressing with linear probing in one
// array, deletion by backward shift (no tombstones), grown to keep the load
// at most one half.  A key's home slot is Fibonacci hashing of it (the
// tests' keys are small sequential numbers, the sampler's already mixed).
#pragma once
#include "server_free.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace pg_cachectl {

class BlockSlotMap {
  public:
    static constexpr std::size_t absent = static_cast<std::size_t>(-1);

    // The index stored for key, or absent.
    std::size_t find(std::uint64_t key) const {
        if (count_ == 0)
            return absent;
        for (std::size_t slot = home(key);; slot = (slot + 1) & mask_) {
            const Entry &entry = entries_[slot];
            if (entry.index_plus_one == 0)
                return absent;
            if (entry.key == key)
                return entry.index_plus_one - 1;
        }
    }

    // Stores index for key (replacing what key had).
    void insert(std::uint64_t key, std::size_t index) {
        if ((count_ + 1) * 2 > entries_.size())
            grow();
        for (std::size_t slot = home(key);; slot = (slot + 1) & mask_) {
            Entry &entry = entries_[slot];
            if (entry.index_plus_one == 0) {
                entry = Entry{key, index + 1};
                ++count_;
                return;
            }
            if (entry.key == key) {
                entry.index_plus_one = index + 1;
                return;
            }
        }
    }

    // Removes key; false when it was not there.
    bool erase(std::uint64_t key) {
        if (count_ == 0)
            return false;
        std::size_t hole = home(key);
        for (;; hole = (hole + 1) & mask_) {
            if (entries_[hole].index_plus_one == 0)
                return false;
            if (entries_[hole].key == key)
                break;
        }
        // Backward shift: an entry after the hole moves into it unless its
        // home slot lies cyclically in (hole, its slot].
        for (std::size_t next = (hole + 1) & mask_;; next = (next + 1) & mask_) {
            Entry &entry = entries_[next];
            if (entry.index_plus_one == 0)
                break;
            const std::size_t wanted = home(entry.key);
            const bool stays = hole <= next ? (hole < wanted && wanted <= next) : (hole < wanted || wanted <= next);
            if (!stays) {
                entries_[hole] = entry;
                hole = next;
            }
        }
        entries_[hole] = Entry{};
        --count_;
        return true;
    }

    std::size_t size() const { return count_; }
    void clear() {
        entries_.assign(entries_.size(), Entry{});
        count_ = 0;
    }

  private:
    struct Entry {
        std::uint64_t key = 0;
        std::size_t index_plus_one = 0; // 0: the slot is empty
    };

    std::size_t home(std::uint64_t key) const {
        return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ULL) >> shift_);
    }

    void grow() {
        std::vector<Entry> old = std::move(entries_);
        const std::size_t slots = old.empty() ? 16 : old.size() * 2;
        entries_.assign(slots, Entry{});
        mask_ = slots - 1;
        shift_ = 64;
        for (std::size_t bits = slots; bits > 1; bits >>= 1)
            --shift_;
        count_ = 0;
        for (const Entry &entry : old)
            if (entry.index_plus_one != 0)
                insert(entry.key, entry.index_plus_one - 1);
    }

    std::vector<Entry> entries_;
    std::size_t mask_ = 0;
    unsigned shift_ = 64;
    std::size_t count_ = 0;
};

} // namespace pg_cachectl
