// synthetic_pool.hpp — loads and a buffer pool for the sizing model's
// tests: zipfian block accesses, and a pool run by PostgreSQL's rules whose
// headers a test reads as the sampler does.
#pragma once
#include "block_sample.hpp"
#include "pool_observer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <unordered_map>
#include <vector>

namespace pg_cachectl {

// Blocks drawn with probability falling as rank^-skew (a zipfian load, as
// pgbench's random_zipfian); ranks scattered over the relation's blocks, or
// rank r at block r.
class ZipfianBlocks {
  public:
    ZipfianBlocks(std::uint32_t blocks, double skew, std::uint64_t seed, bool scatter) : random_(seed) {
        cumulative_.reserve(blocks);
        double sum = 0;
        for (std::uint32_t rank = 1; rank <= blocks; ++rank)
            cumulative_.push_back(sum += std::pow(rank, -skew));
        for (double &value : cumulative_)
            value /= sum;
        block_of_rank_.resize(blocks);
        for (std::uint32_t block = 0; block < blocks; ++block)
            block_of_rank_[block] = block;
        if (scatter)
            std::shuffle(block_of_rank_.begin(), block_of_rank_.end(), random_);
    }
    // The next access, as its block's hash.
    std::uint64_t next() {
        const double uniform = static_cast<double>(random_() >> 11) * 0x1.0p-53;
        const auto rank = std::lower_bound(cumulative_.begin(), cumulative_.end(), uniform) - cumulative_.begin();
        const std::uint32_t block = block_of_rank_[std::min<std::size_t>(rank, block_of_rank_.size() - 1)];
        return block_identity_hash(BlockIdentity{1663, 5, 16384, 0, block});
    }

  private:
    std::mt19937_64 random_;
    std::vector<double> cumulative_;
    std::vector<std::uint32_t> block_of_rank_;
};

// A buffer pool as PostgreSQL runs it, with its headers open to reading:
// a free list first, then the clock hand, counted from the start.
class HeaderPool {
  public:
    explicit HeaderPool(std::uint32_t buffers) : headers_(buffers) {
        for (std::uint32_t buffer = buffers; buffer > 0; --buffer) {
            headers_[buffer - 1].buffer = buffer - 1;
            free_.push_back(buffer - 1);
        }
    }
    bool access(std::uint64_t block) {
        if (const auto found = where_.find(block); found != where_.end()) {
            BufferReading &header = headers_[found->second];
            header.usage = std::min(header.usage + 1, 5);
            return true;
        }
        std::uint32_t buffer;
        if (!free_.empty()) {
            buffer = free_.back();
            free_.pop_back();
        } else {
            for (;;) {
                buffer = static_cast<std::uint32_t>(hand_++ % headers_.size());
                if (headers_[buffer].usage == 0)
                    break;
                --headers_[buffer].usage;
            }
            where_.erase(headers_[buffer].block_hash);
        }
        headers_[buffer] = BufferReading{buffer, block, true, 1};
        where_[block] = buffer;
        return false;
    }
    // A relation dropped: its buffers go back to the free list.
    void drop(std::uint64_t block) {
        if (const auto found = where_.find(block); found != where_.end()) {
            headers_[found->second] = BufferReading{found->second, 0, false, 0};
            free_.push_back(found->second);
            where_.erase(found);
        }
    }
    // The sampler's lowering of a count at the cap: 5 -> 4, else nothing.
    bool lower_from_cap(std::uint32_t buffer) {
        if (!headers_[buffer].valid || headers_[buffer].usage != 5)
            return false;
        headers_[buffer].usage = 4;
        return true;
    }
    std::uint64_t hand() const { return hand_; }
    std::vector<BufferReading> read(const std::vector<std::uint32_t> &buffers) const {
        std::vector<BufferReading> readings;
        readings.reserve(buffers.size());
        for (const std::uint32_t buffer : buffers)
            readings.push_back(headers_[buffer]);
        return readings;
    }

  private:
    std::vector<BufferReading> headers_;
    std::vector<std::uint32_t> free_;
    std::unordered_map<std::uint64_t, std::uint32_t> where_;
    std::uint64_t hand_ = 0;
};

} // namespace pg_cachectl
