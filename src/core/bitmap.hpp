// bitmap.hpp — a view over a bit string laid out as PostgreSQL's varbit lays
// it out (bit 0 is the high bit of the first byte), one bit per block: the
// shape of every block map the core builds, restores and draws.
#pragma once
#include "server_free.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace pg_cachectl {

// A run of consecutive blocks: [first, first + count).
struct BlockRange {
    std::int64_t first = 0;
    std::int64_t count = 0;

    std::int64_t end() const { return first + count; }
    bool operator==(const BlockRange &) const = default;
};

// Bits over memory the caller owns (a varbit's data, built in place).
class BitmapView {
  public:
    // bytes must hold at least bit_count bits; throws InvalidArgument if not.
    BitmapView(std::span<std::uint8_t> bytes, std::int64_t bit_count);

    std::int64_t size() const { return bit_count_; }
    bool test(std::int64_t index) const;
    void set(std::int64_t index);
    // Sets the bits in [from, to), whole bytes at a time where it can.
    void set(std::int64_t from, std::int64_t to);

    // Set bits in [from, to), whole bytes at a time where it can.
    std::int64_t count(std::int64_t from, std::int64_t to) const;
    std::int64_t count() const { return count(0, bit_count_); }

    // The runs of set bits in [from, to), in order, each as long as it can
    // be within those bounds.
    std::vector<BlockRange> runs(std::int64_t from, std::int64_t to) const;
    std::vector<BlockRange> runs() const { return runs(0, bit_count_); }

  private:
    std::span<std::uint8_t> bytes_;
    std::int64_t bit_count_;
};

// Bytes needed for bit_count bits.
constexpr std::int64_t bitmap_bytes(std::int64_t bit_count) {
    return (bit_count + 7) / 8;
}

} // namespace pg_cachectl
