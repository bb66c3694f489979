// test_pool_advice_bridge.cpp — the sizing model through its C ABI, as the
// sampler process will drive it: the same curve as the C++ classes give,
// and every misuse a status, never an exception.
#include "pg_cachectl/pool_advice.h"
#include "pool_advice.hpp"
#include "synthetic_pool.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <cstdint>
#include <vector>

namespace pg_cachectl {
namespace {

const std::vector<double> candidate_sizes{0.25, 0.5, 2, 4};
constexpr std::uint32_t pool = 2000;

TEST_CASE("the C ABI's block hash is the core's") {
    CHECK(cachectl_block_hash(1663, 5, 16384, 0, 0) == block_identity_hash(BlockIdentity{1663, 5, 16384, 0, 0}));
    CHECK(cachectl_block_hash(1663, 5, 16384, 0, 0) == 0xbf8197500f4f1eb6ULL);
    CHECK(cachectl_block_hash(0, 0, 0, -1, 0) != cachectl_block_hash(0, 0, 0, 0, 0));
}

TEST_CASE("driven through the C ABI, a sampler round by round gets the C++ model's curve") {
    cachectl_error error{};
    cachectl_pool_advice *advice = nullptr;
    REQUIRE(cachectl_pool_advice_create(pool, candidate_sizes.data(), candidate_sizes.size(), 0.2, 1 << 20, 1000, 5,
                                        &advice, &error) == CACHECTL_OK);
    PoolAdvice direct(pool, candidate_sizes, 0.2, 1 << 20, 1000, 5);
    // two copies of one server, one per driver, fed the same load
    HeaderPool server(pool), direct_server(pool);
    ZipfianBlocks load(4 * pool, 0.9, 97, false);
    std::vector<std::uint32_t> to_read(pool);
    std::vector<cachectl_buffer_reading> readings;
    std::int64_t told_total = 0, direct_told_total = 0, lowered = 0;
    double hits = 0;
    constexpr int accesses = 40000;
    for (int step = 0; step < accesses; ++step) {
        const std::uint64_t block = load.next();
        hits += server.access(block);
        direct_server.access(block);
        if ((step + 1) % (pool / 64) != 0)
            continue;
        // the C side: ask, read the headers, hand them over, lower the capped counts
        size_t count = 0;
        REQUIRE(cachectl_pool_advice_buffers_to_read(advice, server.hand(), to_read.data(), to_read.size(), &count,
                                                     &error) == CACHECTL_OK);
        readings.clear();
        for (const BufferReading &header : server.read({to_read.begin(), to_read.begin() + count}))
            readings.push_back(cachectl_buffer_reading{header.buffer, header.block_hash, header.valid, header.usage, 0, false});
        std::int64_t told = 0;
        const std::uint32_t *saturated = nullptr;
        size_t saturated_count = 0;
        REQUIRE(cachectl_pool_advice_observe(advice, server.hand(), readings.data(), readings.size(), &told, &saturated,
                                             &saturated_count, &error) == CACHECTL_OK);
        told_total += told;
        for (size_t index = 0; index < saturated_count; ++index)
            if (server.lower_from_cap(saturated[index])) {
                cachectl_pool_advice_count_lowered(advice, saturated[index]);
                ++lowered;
            }
        // the C++ side, the same round
        const std::uint64_t hand = direct_server.hand();
        direct_told_total +=
            static_cast<std::int64_t>(direct.observe(hand, direct_server.read(direct.buffers_to_read(hand))));
        for (const std::uint32_t buffer : direct.saturated_buffers())
            if (direct_server.lower_from_cap(buffer))
                direct.count_lowered(buffer);
    }
    CHECK(told_total > 0);
    CHECK(lowered > 0);
    CHECK(told_total == direct_told_total);

    std::vector<cachectl_pool_size_point> points(8);
    size_t point_count = 0;
    double rate = 0;
    std::int64_t sampled_blocks = 0;
    REQUIRE(cachectl_pool_advice_points(advice, points.data(), points.size(), &point_count, &rate, &sampled_blocks,
                                        &error) == CACHECTL_OK);
    const std::vector<PoolSizePoint> expected = direct.points();
    REQUIRE(point_count == expected.size());
    REQUIRE(point_count == 5); // 1x added
    for (size_t index = 0; index < point_count; ++index) {
        CAPTURE(index);
        CHECK(points[index].size_ratio == expected[index].size_ratio);
        CHECK(points[index].buffers == expected[index].buffers);
        CHECK(points[index].accesses == expected[index].accesses);
        CHECK(points[index].hits == expected[index].hits);
    }
    CHECK(rate == Approx(0.2).epsilon(1e-9));
    CHECK(sampled_blocks == static_cast<std::int64_t>(direct.sampled_blocks()));

    std::vector<double> ratios(point_count);
    REQUIRE(cachectl_pool_advice_predict(points.data(), point_count, hits, accesses, 1.0, ratios.data(), &error) ==
            CACHECTL_OK);
    CHECK(ratios[2] == hits / accesses); // 1x: the measured ratio
    CHECK(ratios[0] <= ratios[2]);
    CHECK(ratios[4] >= ratios[2]);
    cachectl_pool_advice_free(advice);
}

TEST_CASE("readings the model does not want can be left out; per relation the counts add up to the pool's") {
    cachectl_error error{};
    cachectl_pool_advice *every = nullptr, *wanted = nullptr;
    REQUIRE(cachectl_pool_advice_create(pool, candidate_sizes.data(), candidate_sizes.size(), 0.2, 1 << 20, 50, 5,
                                        &every, &error) == CACHECTL_OK);
    REQUIRE(cachectl_pool_advice_create(pool, candidate_sizes.data(), candidate_sizes.size(), 0.2, 1 << 20, 50, 5,
                                        &wanted, &error) == CACHECTL_OK);
    HeaderPool server(pool);
    ZipfianBlocks load(4 * pool, 0.8, 31, false);
    std::vector<std::uint32_t> to_read(pool), to_read_wanted(pool);
    std::size_t all_readings = 0, wanted_readings = 0;
    std::int64_t told_every = 0, told_wanted = 0;
    // one server, two drivers: the same headers, one hands them all over
    const auto drive = [&](cachectl_pool_advice *advice, std::vector<std::uint32_t> &list, bool filter,
                           std::size_t &handed, std::int64_t &told_total) {
        size_t count = 0;
        REQUIRE(cachectl_pool_advice_buffers_to_read(advice, server.hand(), list.data(), list.size(), &count,
                                                     &error) == CACHECTL_OK);
        std::vector<cachectl_buffer_reading> readings;
        for (const BufferReading &header : server.read({list.begin(), list.begin() + count})) {
            if (filter && !cachectl_pool_advice_wants_reading(advice, header.buffer, header.valid, header.block_hash))
                continue;
            readings.push_back(cachectl_buffer_reading{header.buffer, header.block_hash, header.valid, header.usage,
                                                       header.block_hash % 3, false});
        }
        handed += readings.size();
        std::int64_t told = 0;
        const std::uint32_t *saturated = nullptr;
        size_t saturated_count = 0;
        REQUIRE(cachectl_pool_advice_observe(advice, server.hand(), readings.data(), readings.size(), &told,
                                             &saturated, &saturated_count, &error) == CACHECTL_OK);
        told_total += told;
    };
    for (int step = 0; step < 30000; ++step) {
        server.access(load.next());
        if ((step + 1) % (pool / 64) != 0)
            continue;
        drive(every, to_read, false, all_readings, told_every);
        drive(wanted, to_read_wanted, true, wanted_readings, told_wanted);
    }
    CHECK(told_wanted == told_every);
    CHECK(told_every > 0);
    CHECK(wanted_readings < all_readings); // full reads: most headers hold no sampled block
    CHECK(cachectl_pool_advice_followed_buffers(wanted) == cachectl_pool_advice_followed_buffers(every));
    CHECK(cachectl_pool_advice_followed_buffers(wanted) > 0);
    CHECK_FALSE(cachectl_pool_advice_wants_reading(nullptr, 0, true, 0));

    std::vector<cachectl_pool_size_point> points(8), points_wanted(8);
    size_t point_count = 0, wanted_count = 0;
    double rate = 0;
    std::int64_t sampled = 0;
    REQUIRE(cachectl_pool_advice_points(every, points.data(), points.size(), &point_count, &rate, &sampled, &error) ==
            CACHECTL_OK);
    REQUIRE(cachectl_pool_advice_points(wanted, points_wanted.data(), points_wanted.size(), &wanted_count, &rate,
                                        &sampled, &error) == CACHECTL_OK);
    REQUIRE(point_count == wanted_count);
    for (size_t index = 0; index < point_count; ++index)
        CHECK(points_wanted[index].hits == points[index].hits);

    size_t relation_count = 0;
    CHECK(cachectl_pool_advice_relation_points(wanted, nullptr, 0, &relation_count, &error) ==
          CACHECTL_INVALID_ARGUMENT);
    REQUIRE(relation_count == 3 * point_count); // the keys 0, 1 and 2, every size
    std::vector<cachectl_relation_size_point> per_relation(relation_count);
    REQUIRE(cachectl_pool_advice_relation_points(wanted, per_relation.data(), per_relation.size(), &relation_count,
                                                 &error) == CACHECTL_OK);
    for (size_t size = 0; size < point_count; ++size) {
        CAPTURE(size);
        double accesses = 0, hits = 0;
        for (size_t relation = 0; relation < 3; ++relation) {
            const cachectl_relation_size_point &point = per_relation[relation * point_count + size];
            CHECK(point.relation == relation);
            CHECK(point.size_ratio == points[size].size_ratio);
            CHECK(point.accesses > 0);
            accesses += point.accesses;
            hits += point.hits;
        }
        CHECK(accesses == Approx(points[size].accesses));
        CHECK(hits == Approx(points[size].hits));
    }
    cachectl_pool_advice_free(every);
    cachectl_pool_advice_free(wanted);
}

TEST_CASE("misuse of the C ABI comes back as a status with the facts") {
    cachectl_error error{};
    cachectl_pool_advice *advice = nullptr;
    CHECK(cachectl_pool_advice_create(0, nullptr, 0, 0.5, 10, 1, 1, &advice, &error) == CACHECTL_INVALID_ARGUMENT);
    CHECK(error.status == CACHECTL_INVALID_ARGUMENT);
    CHECK(std::string(error.bug).find("buffer") != std::string::npos);
    CHECK(advice == nullptr);
    CHECK(cachectl_pool_advice_create(std::int64_t{1} << 40, nullptr, 0, 0.5, 10, 1, 1, &advice, &error) ==
          CACHECTL_INVALID_ARGUMENT);
    CHECK(cachectl_pool_advice_create(100, nullptr, 0, 0.0, 10, 1, 1, &advice, &error) == CACHECTL_INVALID_ARGUMENT);
    CHECK(cachectl_pool_advice_create(100, nullptr, 0, 0.5, 10, 0, 1, &advice, &error) == CACHECTL_INVALID_ARGUMENT);
    CHECK(cachectl_pool_advice_create(100, nullptr, 2, 0.5, 10, 1, 1, &advice, &error) == CACHECTL_INVALID_ARGUMENT);
    CHECK(cachectl_pool_advice_create(100, nullptr, 0, 0.5, 10, 1, 1, nullptr, &error) == CACHECTL_INVALID_ARGUMENT);

    REQUIRE(cachectl_pool_advice_create(100, nullptr, 0, 0.5, 10, 1, 1, &advice, &error) == CACHECTL_OK);
    std::vector<std::uint32_t> too_small(10);
    size_t count = 0;
    // the first round reads every buffer: a list of 10 cannot hold 100
    CHECK(cachectl_pool_advice_buffers_to_read(advice, 0, too_small.data(), too_small.size(), &count, &error) ==
          CACHECTL_INVALID_ARGUMENT);
    std::int64_t told = 0;
    const std::uint32_t *saturated = nullptr;
    size_t saturated_count = 0;
    CHECK(cachectl_pool_advice_observe(advice, 0, nullptr, 3, &told, &saturated, &saturated_count, &error) ==
          CACHECTL_INVALID_ARGUMENT);
    CHECK(cachectl_pool_advice_observe(advice, 0, nullptr, 0, &told, &saturated, &saturated_count, &error) ==
          CACHECTL_OK);
    cachectl_pool_size_point one{};
    double rate = 0;
    std::int64_t sampled = 0;
    // only 1x is simulated: room for one point is enough, none is not
    CHECK(cachectl_pool_advice_points(advice, &one, 1, &count, &rate, &sampled, &error) == CACHECTL_OK);
    CHECK(cachectl_pool_advice_points(advice, &one, 0, &count, &rate, &sampled, &error) == CACHECTL_INVALID_ARGUMENT);
    cachectl_pool_advice_count_lowered(nullptr, 3); // ignored
    cachectl_pool_advice_free(advice);
    cachectl_pool_advice_free(nullptr);

    const cachectl_pool_size_point no_today[] = {{0.5, 50, 10, 5}};
    double ratio = 0;
    CHECK(cachectl_pool_advice_predict(no_today, 1, 5, 10, 1, &ratio, &error) == CACHECTL_INVALID_ARGUMENT);
    const cachectl_pool_size_point today[] = {{1, 100, 10, 5}};
    CHECK(cachectl_pool_advice_predict(today, 1, 11, 10, 1, &ratio, &error) == CACHECTL_INVALID_ARGUMENT);
    CHECK(cachectl_pool_advice_predict(today, 1, 0, 0, 1, &ratio, &error) == CACHECTL_OK);
    CHECK(std::isnan(ratio));
}

} // namespace
} // namespace pg_cachectl
