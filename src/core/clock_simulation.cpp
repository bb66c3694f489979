// clock_simulation.cpp — the clock sweep of a simulated pool.
#include "clock_simulation.hpp"

#include <algorithm>

namespace pg_cachectl {

ClockSimulation::ClockSimulation(std::size_t buffers) {
    resize(buffers);
}

bool ClockSimulation::access(std::uint64_t key) {
    if (capacity_ == 0)
        return false;
    if (const std::size_t found = where_.find(key); found != BlockSlotMap::absent) {
        Buffer &buffer = buffers_[found];
        buffer.usage = std::min(buffer.usage + 1, max_usage_count);
        return true;
    }
    const std::size_t index = take_empty_buffer();
    buffers_[index] = Buffer{key, 1, true};
    where_.insert(key, index);
    return false;
}

std::size_t ClockSimulation::sweep_to_victim() {
    // Some buffer is used and counts are at most 5, so at most six turns of
    // the hand find one at 0.  Empty buffers are the free list's, not the
    // sweep's.
    // (no modulo: a division per step was most of the sweep's time)
    const std::size_t size = buffers_.size();
    for (;;) {
        const std::size_t index = hand_;
        if (++hand_ == size)
            hand_ = 0;
        Buffer &buffer = buffers_[index];
        if (!buffer.used)
            continue;
        if (buffer.usage == 0)
            return index;
        --buffer.usage;
    }
}

std::size_t ClockSimulation::take_empty_buffer() {
    if (!free_.empty()) {
        const std::size_t index = free_.back();
        free_.pop_back();
        return index;
    }
    // every buffer in the pool holds a block: the sweep evicts one
    const std::size_t index = sweep_to_victim();
    where_.erase(buffers_[index].key);
    buffers_[index] = Buffer{};
    return index;
}

void ClockSimulation::empty_buffer(std::size_t index) {
    where_.erase(buffers_[index].key);
    buffers_[index] = Buffer{};
    free_.push_back(index);
}

void ClockSimulation::forget(std::uint64_t key) {
    if (const std::size_t found = where_.find(key); found != BlockSlotMap::absent)
        empty_buffer(found);
}

void ClockSimulation::resize(std::size_t buffers) {
    while (capacity_ > buffers) {
        retired_.push_back(take_empty_buffer());
        --capacity_;
    }
    std::vector<std::size_t> added;
    for (; capacity_ < buffers; ++capacity_) {
        if (!retired_.empty()) {
            added.push_back(retired_.back());
            retired_.pop_back();
        } else {
            buffers_.push_back(Buffer{});
            added.push_back(buffers_.size() - 1);
        }
    }
    // the free list is used from its end: lowest buffers first, as a new pool fills
    free_.insert(free_.end(), added.rbegin(), added.rend());
    if (retired_.size() > 64 && retired_.size() > buffers_.size() / 2)
        compact();
}

void ClockSimulation::compact() {
    std::vector<Buffer> kept;
    kept.reserve(where_.size());
    for (std::size_t step = 0; step < buffers_.size(); ++step) {
        const Buffer &buffer = buffers_[(hand_ + step) % buffers_.size()];
        if (buffer.used)
            kept.push_back(buffer);
    }
    buffers_.assign(capacity_, Buffer{});
    where_.clear();
    free_.clear();
    retired_.clear();
    for (std::size_t index = 0; index < kept.size(); ++index) {
        buffers_[index] = kept[index];
        where_.insert(kept[index].key, index);
    }
    for (std::size_t index = capacity_; index > kept.size(); --index)
        free_.push_back(index - 1);
    hand_ = 0;
}

} // namespace pg_cachectl
