// run_lists.cpp — normalizing, intersecting and subtracting block runs.
#include "run_lists.hpp"

#include <algorithm>

namespace pg_cachectl {

RunList normalized_runs(RunList runs) {
    std::erase_if(runs, [](const BlockRange &run) { return run.count <= 0 || run.first < 0; });
    std::sort(runs.begin(), runs.end(), [](const BlockRange &a, const BlockRange &b) { return a.first < b.first; });
    RunList merged;
    merged.reserve(runs.size());
    for (const BlockRange &run : runs) {
        if (!merged.empty() && run.first <= merged.back().end())
            merged.back().count = std::max(merged.back().end(), run.end()) - merged.back().first;
        else
            merged.push_back(run);
    }
    return merged;
}

RunList intersect_runs(const RunList &left, const RunList &right) {
    RunList both;
    auto a = left.begin();
    auto b = right.begin();
    while (a != left.end() && b != right.end()) {
        const std::int64_t first = std::max(a->first, b->first);
        const std::int64_t end = std::min(a->end(), b->end());
        if (first < end)
            both.push_back(BlockRange{first, end - first});
        // the run that ends first can meet nothing further on
        if (a->end() < b->end())
            ++a;
        else
            ++b;
    }
    return both;
}

RunList subtract_runs(const RunList &left, const RunList &right) {
    RunList rest;
    auto cut = right.begin();
    for (const BlockRange &run : left) {
        std::int64_t first = run.first;
        while (cut != right.end() && cut->end() <= first)
            ++cut;
        // every cut that starts inside what is left of this run
        for (auto inside = cut; inside != right.end() && inside->first < run.end(); ++inside) {
            if (inside->first > first)
                rest.push_back(BlockRange{first, inside->first - first});
            first = std::max(first, inside->end());
        }
        if (first < run.end())
            rest.push_back(BlockRange{first, run.end() - first});
    }
    return rest;
}

} // namespace pg_cachectl
