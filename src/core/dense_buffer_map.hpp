// dense_buffer_map.hpp — a map from buffer number to a small value, for the
// buffers the advice's observer follows or watches (pool_observer.hpp).
// Every buffer read each round asks whether it is tracked, and every round
// lists all tracked buffers: std::unordered_map spent a tenth of the
// sampler's CPU in those lookups and in walking its nodes.  Here a position
// per pool buffer (4 bytes each: 8 MB for a 16 GB pool) points into one
// dense array of entries; erase moves the last entry into the gap.
#pragma once
#include "server_free.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace pg_cachectl {

template <class Value> class DenseBufferMap {
  public:
    struct Entry {
        std::uint32_t buffer;
        Value value;
    };

    explicit DenseBufferMap(std::uint32_t pool_buffers) : position_of_(pool_buffers, 0) {}

    // The value stored for buffer, or nullptr.  A buffer out of the pool is never stored.
    Value *find(std::uint32_t buffer) {
        if (buffer >= position_of_.size() || position_of_[buffer] == 0)
            return nullptr;
        return &entries_[position_of_[buffer] - 1].value;
    }
    const Value *find(std::uint32_t buffer) const { return const_cast<DenseBufferMap *>(this)->find(buffer); }
    bool contains(std::uint32_t buffer) const { return find(buffer) != nullptr; }

    // Stores value for buffer (replacing what it had); ignored out of the pool.
    void set(std::uint32_t buffer, const Value &value) {
        if (buffer >= position_of_.size())
            return;
        if (Value *stored = find(buffer)) {
            *stored = value;
            return;
        }
        entries_.push_back(Entry{buffer, value});
        position_of_[buffer] = static_cast<std::uint32_t>(entries_.size());
    }

    void erase(std::uint32_t buffer) {
        if (buffer >= position_of_.size() || position_of_[buffer] == 0)
            return;
        const std::uint32_t gap = position_of_[buffer] - 1;
        position_of_[buffer] = 0;
        if (gap + 1 != entries_.size()) {
            entries_[gap] = entries_.back();
            position_of_[entries_[gap].buffer] = gap + 1;
        }
        entries_.pop_back();
    }

    void clear() {
        for (const Entry &entry : entries_)
            position_of_[entry.buffer] = 0;
        entries_.clear();
    }

    std::size_t size() const { return entries_.size(); }
    // In no particular order; invalidated by set() and erase().
    const std::vector<Entry> &entries() const { return entries_; }

  private:
    std::vector<std::uint32_t> position_of_; // per buffer: its entry's index + 1, or 0
    std::vector<Entry> entries_;
};

} // namespace pg_cachectl
