// clock_simulation.hpp — PostgreSQL's buffer replacement, as a pool of keys.
// Each buffer has a usage count: an access to a cached block raises it by
// one up to 5; a block read in starts at 1; to find room, the clock hand
// sweeps the pool, lowering counts, and takes the first buffer at 0.  Empty
// buffers are used first (the free list).  Not modelled: pins (a pinned
// buffer is skipped), ring buffers of bulk reads, a backend's re-pin of a
// buffer it holds (no increment there).  Sized at the sample's rate, this is
// a miniature of the pool at one size (Waldspurger et al., ATC 2017).
#pragma once
#include "server_free.hpp"

#include "block_slot_map.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace pg_cachectl {

class ClockSimulation {
  public:
    static constexpr int max_usage_count = 5; // BM_MAX_USAGE_COUNT

    explicit ClockSimulation(std::size_t buffers);

    // An access to the block `key`: true when it was cached (a hit).  A pool
    // of no buffers misses every access.
    bool access(std::uint64_t key);

    // The block left the sample: its buffer becomes empty.
    void forget(std::uint64_t key);

    // A new number of buffers.  Shrinking takes empty buffers first, then
    // evicts as the sweep would, from the hand on.  Cheap for small steps
    // (the sample's rate falls a little at a time): buffers taken out stay
    // as gaps the sweep passes over until they are many.
    void resize(std::size_t buffers);

    std::size_t buffers() const { return capacity_; }
    std::size_t cached() const { return where_.size(); }
    bool holds(std::uint64_t key) const { return where_.find(key) != BlockSlotMap::absent; }

  private:
    struct Buffer {
        std::uint64_t key = 0;
        int usage = 0;
        bool used = false;
    };

    // The buffer the sweep takes: lowers counts until one is at 0.
    std::size_t sweep_to_victim();
    // An empty buffer of the pool: the free list's, else the sweep's victim, evicted.
    std::size_t take_empty_buffer();
    void empty_buffer(std::size_t index);
    // Removes the gaps: what is cached, in the order the hand meets it.
    void compact();

    std::vector<Buffer> buffers_;
    std::size_t capacity_ = 0;
    std::vector<std::size_t> free_;    // empty buffers in use as the pool's
    std::vector<std::size_t> retired_; // gaps left by shrinking
    BlockSlotMap where_; // block key -> its buffer
    std::size_t hand_ = 0;
};

} // namespace pg_cachectl
