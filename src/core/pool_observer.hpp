// pool_observer.hpp — accesses to sampled blocks, told from what buffer
// headers show over time.  PostgreSQL calls no hook on a buffer access, but
// every access leaves a trace a reader of the headers can see: a miss puts
// the block in a buffer the clock hand has just passed (or one from the free
// list), and a hit raises the buffer's usage count by one, up to 5, while
// each pass of the hand lowers it by one.  Read every round: the buffers the
// hand swept since the round before last (where new blocks land), the
// buffers holding sampled blocks, and the empty ones (the free list).
//
// hits between two readings = usage now - usage then + passes of the hand,
// at least 0.  Blind to: hits beyond a count of 5 within a round, a
// backend's re-pin of a buffer it holds, ring buffers (bulk reads reuse
// their own), a buffer refilled twice within one round.  The order of
// accesses inside a round is not seen: the round's accesses come out in a
// seeded random order.
#pragma once
#include "server_free.hpp"

#include "dense_buffer_map.hpp"

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace pg_cachectl {

// One buffer header as read: its buffer number, the hash of the block it
// holds (block_sample.hpp), whether it holds a valid page, its usage count,
// and the relation the block belongs to (the caller's key; the observer
// does not use it).
struct BufferReading {
    std::uint32_t buffer = 0;
    std::uint64_t block_hash = 0;
    bool valid = false;
    int usage = 0;
    std::uint64_t relation = 0;
};

class PoolObserver {
  public:
    // Empty buffers watched every round at most (memory stays bounded).
    static constexpr std::size_t max_watched_empty_buffers = 16384;

    // pool_buffers: NBuffers (>= 1).  full_read_every: every that many
    // rounds every buffer is read (catches what the free list hands out
    // beside the buffers watched); at least 1.
    PoolObserver(std::uint32_t pool_buffers, std::uint32_t full_read_every, std::uint64_t seed);

    // The buffers to read this round, the clock hand being at `hand`: its
    // position counted from the server's start (complete passes x NBuffers
    // + the victim index), never going back.  Each once: those swept since
    // the last round (in the hand's order), then the followed and watched
    // ones, and those recheck() named last round.
    std::vector<std::uint32_t> buffers_to_read(std::uint64_t hand);

    // A buffer of this round's swept range to read again next round: pinned
    // when read (a victim the hand took may still hold its old block while
    // its backend writes it out, and get its new one after this reading) or
    // not readable (its header locked every try).  Bounded as the empty
    // watch is.
    void recheck(std::uint32_t buffer) {
        if (recheck_.size() < max_watched_empty_buffers)
            recheck_.push_back(buffer);
    }

    // The readings of those buffers (in any order; others are ignored).
    // sampled(block_hash) tells which blocks are followed.  Returns the
    // round's accesses to sampled blocks, one hash per access.
    template <class Sampled>
    std::vector<std::uint64_t> observe(std::uint64_t hand, const std::vector<BufferReading> &readings,
                                       Sampled &&sampled) {
        std::vector<std::uint64_t> accesses;
        begin_round(hand);
        for (const BufferReading &reading : readings)
            read_one(hand, reading, reading.valid && sampled(reading.block_hash), accesses);
        finish_round(hand, accesses);
        return accesses;
    }

    // Followed buffers read at the count's cap (5) this round.  A hit there
    // leaves no trace, so the caller may lower each to 4 (only if still at
    // 5, as the clock sweep lowers counts) and say so with count_lowered():
    // the next hit then shows.  The cost: a sampled block at the cap needs
    // four passes of the hand to leave instead of five.
    const std::vector<std::uint32_t> &saturated_buffers() const { return saturated_; }

    // The sampled blocks new to their buffer this round, with the relation
    // their reading named: a block's relation is learnt once, not at every
    // reading.
    struct EnteredBlock {
        std::uint64_t block_hash;
        std::uint64_t relation;
    };
    const std::vector<EnteredBlock> &entered_blocks() const { return entered_; }
    void count_lowered(std::uint32_t buffer);

    // Whether a reading of this buffer changes what the observer knows even
    // when it holds no sampled block: it follows or watches it.
    bool tracks(std::uint32_t buffer) const { return followed_.contains(buffer) || empty_.contains(buffer); }

    std::size_t followed_buffers() const { return followed_.size(); }
    std::size_t watched_empty_buffers() const { return empty_.size(); }

  private:
    struct Followed {
        std::uint64_t block_hash;
        int usage;
        std::uint64_t hand; // where the hand was when the usage was read
    };

    // How often the hand passed `buffer` going from `from` to `to`.
    std::uint64_t passes_over(std::uint32_t buffer, std::uint64_t from, std::uint64_t to) const;
    void begin_round(std::uint64_t hand);
    void read_one(std::uint64_t hand, const BufferReading &reading, bool sampled, std::vector<std::uint64_t> &accesses);
    void finish_round(std::uint64_t hand, std::vector<std::uint64_t> &accesses);

    std::uint32_t pool_buffers_;
    std::uint32_t full_read_every_;
    std::uint64_t rounds_ = 0;
    bool started_ = false;
    std::uint64_t last_hand_ = 0;
    std::vector<std::uint32_t> recheck_;
    std::vector<std::uint32_t> listed_in_; // per buffer: the round that listed it last
    std::uint32_t round_stamp_ = 0;
    DenseBufferMap<Followed> followed_;
    struct Empty {};
    DenseBufferMap<Empty> empty_;
    std::vector<std::uint32_t> saturated_;
    std::vector<EnteredBlock> entered_;
    std::mt19937_64 order_;
};

} // namespace pg_cachectl
