// pool_observer.cpp — accesses told from usage counts and the clock hand.
#include "pool_observer.hpp"

#include "core_errors.hpp"

#include <algorithm>

namespace pg_cachectl {

PoolObserver::PoolObserver(std::uint32_t pool_buffers, std::uint32_t full_read_every, std::uint64_t seed)
    : pool_buffers_(pool_buffers), full_read_every_(full_read_every), followed_(pool_buffers), empty_(pool_buffers),
      order_(seed) {
    if (pool_buffers == 0)
        throw InvalidArgument("the pool must have at least one buffer");
    if (full_read_every == 0)
        throw InvalidArgument("a full read must come every round or less often");
}

std::vector<std::uint32_t> PoolObserver::buffers_to_read(std::uint64_t hand) {
    std::vector<std::uint32_t> buffers;
    // The first round, a hand that went back (the server restarted) and
    // every full_read_every-th round: all of them.
    const bool everything =
        !started_ || hand < last_hand_ || rounds_ % full_read_every_ == 0 || hand - last_hand_ >= pool_buffers_;
    if (everything) {
        recheck_.clear();
        buffers.resize(pool_buffers_);
        for (std::uint32_t buffer = 0; buffer < pool_buffers_; ++buffer)
            buffers[buffer] = buffer;
        return buffers;
    }
    // Swept since the last round (a victim still changing hands then was
    // named by recheck() and comes again below), then the followed, watched
    // and rechecked ones not listed yet: each once, by a stamp per buffer
    // (a sort of the list cost the sampler a tenth of its time).
    if (++round_stamp_ == 0) {
        std::fill(listed_in_.begin(), listed_in_.end(), 0);
        round_stamp_ = 1;
    }
    if (listed_in_.size() != pool_buffers_)
        listed_in_.assign(pool_buffers_, 0);
    const auto add = [&](std::uint32_t buffer) {
        if (buffer < pool_buffers_ && listed_in_[buffer] != round_stamp_) {
            listed_in_[buffer] = round_stamp_;
            buffers.push_back(buffer);
        }
    };
    buffers.reserve(static_cast<std::size_t>(hand - last_hand_) + followed_.size() + empty_.size() + recheck_.size());
    // the swept range, with one division for its start, not one per buffer
    std::uint32_t swept = static_cast<std::uint32_t>(last_hand_ % pool_buffers_);
    for (std::uint64_t position = last_hand_; position < hand; ++position) {
        add(swept);
        if (++swept == pool_buffers_)
            swept = 0;
    }
    for (const auto &entry : followed_.entries())
        add(entry.buffer);
    for (const auto &entry : empty_.entries())
        add(entry.buffer);
    for (const std::uint32_t buffer : recheck_)
        add(buffer);
    recheck_.clear();
    return buffers;
}

std::uint64_t PoolObserver::passes_over(std::uint32_t buffer, std::uint64_t from, std::uint64_t to) const {
    // positions p in [0, x) with p % pool_buffers_ == buffer
    const auto before = [&](std::uint64_t x) -> std::uint64_t {
        return x <= buffer ? 0 : (x - buffer - 1) / pool_buffers_ + 1;
    };
    return to > from ? before(to) - before(from) : 0;
}

void PoolObserver::read_one(std::uint64_t hand, const BufferReading &reading, bool sampled,
                            std::vector<std::uint64_t> &accesses) {
    if (reading.buffer >= pool_buffers_)
        return;
    Followed *const found = followed_.find(reading.buffer);
    if (!reading.valid) {
        // a pool just started is all empty: past the bound, the full
        // reads find what the free list handed out
        if (empty_.size() < max_watched_empty_buffers)
            empty_.set(reading.buffer, Empty{});
        if (found != nullptr)
            followed_.erase(reading.buffer);
        return;
    }
    empty_.erase(reading.buffer);
    if (!sampled) {
        if (found != nullptr)
            followed_.erase(reading.buffer); // its sampled block left; another came
        return;
    }
    const int usage = std::clamp(reading.usage, 0, 5);
    if (found != nullptr && found->block_hash == reading.block_hash) {
        Followed &followed = *found;
        const std::int64_t hits = static_cast<std::int64_t>(usage) - followed.usage +
                                  static_cast<std::int64_t>(passes_over(reading.buffer, followed.hand, hand));
        accesses.insert(accesses.end(), static_cast<std::size_t>(std::max<std::int64_t>(hits, 0)), reading.block_hash);
        followed.usage = usage;
        followed.hand = hand;
        if (usage == 5)
            saturated_.push_back(reading.buffer);
        return;
    }
    // A block new to the buffer: the miss that read it in (count 1), then
    // the hits that raised its count since.
    accesses.insert(accesses.end(), static_cast<std::size_t>(1 + std::max(usage - 1, 0)), reading.block_hash);
    followed_.set(reading.buffer, Followed{reading.block_hash, usage, hand});
    entered_.push_back(EnteredBlock{reading.block_hash, reading.relation});
    if (usage == 5)
        saturated_.push_back(reading.buffer);
}

void PoolObserver::count_lowered(std::uint32_t buffer) {
    if (Followed *const found = followed_.find(buffer); found != nullptr && found->usage == 5)
        found->usage = 4;
}

void PoolObserver::begin_round(std::uint64_t hand) {
    saturated_.clear();
    entered_.clear();
    if (started_ && hand < last_hand_) {
        // the server restarted: what was followed went with its pool
        followed_.clear();
        empty_.clear();
        recheck_.clear();
        started_ = false;
    }
}

void PoolObserver::finish_round(std::uint64_t hand, std::vector<std::uint64_t> &accesses) {
    std::shuffle(accesses.begin(), accesses.end(), order_);
    last_hand_ = hand;
    started_ = true;
    ++rounds_;
}

} // namespace pg_cachectl
