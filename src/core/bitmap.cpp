// bitmap.cpp — bit strings in varbit order: test, set, count, runs.
#include "bitmap.hpp"

#include "core_errors.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

namespace pg_cachectl {

namespace {

constexpr std::uint8_t bit_mask(std::int64_t index) {
    return static_cast<std::uint8_t>(0x80u >> (index % 8));
}

// Eight bytes at once: a map of 16 TiB of blocks is 256 MB, and a byte at a
// time kept os_draw() busy for seconds, deaf to a cancel.
constexpr std::int64_t word_bits = 64;

std::uint64_t word_at(std::span<const std::uint8_t> bytes, std::int64_t bit_index) {
    std::uint64_t word;
    std::memcpy(&word, bytes.data() + bit_index / 8, sizeof(word));
    return word;
}

} // namespace

BitmapView::BitmapView(std::span<std::uint8_t> bytes, std::int64_t bit_count) : bytes_(bytes), bit_count_(bit_count) {
    if (bit_count < 0 || static_cast<std::int64_t>(bytes.size()) < bitmap_bytes(bit_count))
        throw InvalidArgument("a bitmap needs one bit per block and room for every bit");
}

bool BitmapView::test(std::int64_t index) const {
    return (bytes_[static_cast<std::size_t>(index / 8)] & bit_mask(index)) != 0;
}

void BitmapView::set(std::int64_t index) {
    bytes_[static_cast<std::size_t>(index / 8)] |= bit_mask(index);
}

void BitmapView::set(std::int64_t from, std::int64_t to) {
    if (from < 0)
        from = 0;
    if (to > bit_count_)
        to = bit_count_;
    std::int64_t index = from;
    for (; index < to && index % 8 != 0; ++index)
        set(index);
    const std::int64_t whole_bytes = (to - index) / 8;
    if (whole_bytes > 0) {
        std::memset(bytes_.data() + index / 8, 0xff, static_cast<std::size_t>(whole_bytes));
        index += 8 * whole_bytes;
    }
    for (; index < to; ++index)
        set(index);
}

std::int64_t BitmapView::count(std::int64_t from, std::int64_t to) const {
    if (from < 0)
        from = 0;
    if (to > bit_count_)
        to = bit_count_;
    std::int64_t total = 0;
    std::int64_t index = from;
    for (; index < to && index % 8 != 0; ++index)
        total += test(index) ? 1 : 0;
    for (; index + word_bits <= to; index += word_bits)
        total += std::popcount(word_at(bytes_, index));
    for (; index + 8 <= to; index += 8)
        total += std::popcount(bytes_[static_cast<std::size_t>(index / 8)]);
    for (; index < to; ++index)
        total += test(index) ? 1 : 0;
    return total;
}

std::vector<BlockRange> BitmapView::runs(std::int64_t from, std::int64_t to) const {
    std::vector<BlockRange> found;
    std::int64_t index = std::max<std::int64_t>(from, 0);
    to = std::min(to, bit_count_);
    while (index < to) {
        // Skip clear bits, eight zero bytes or one at a time when aligned.
        if (index % 8 == 0 && index + word_bits <= to && word_at(bytes_, index) == 0) {
            index += word_bits;
            continue;
        }
        if (index % 8 == 0 && index + 8 <= to && bytes_[static_cast<std::size_t>(index / 8)] == 0) {
            index += 8;
            continue;
        }
        if (!test(index)) {
            ++index;
            continue;
        }
        const std::int64_t first = index;
        while (index < to) {
            if (index % 8 == 0 && index + word_bits <= to && word_at(bytes_, index) == ~std::uint64_t{0}) {
                index += word_bits;
                continue;
            }
            if (index % 8 == 0 && index + 8 <= to && bytes_[static_cast<std::size_t>(index / 8)] == 0xff) {
                index += 8;
                continue;
            }
            if (!test(index))
                break;
            ++index;
        }
        found.push_back(BlockRange{first, index - first});
    }
    return found;
}

} // namespace pg_cachectl
