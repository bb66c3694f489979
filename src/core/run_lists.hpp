// run_lists.hpp — lists of block runs kept as a multirange keeps them
// (sorted, disjoint, not touching), and their set arithmetic: what a
// prefetch queues and what a restore plans are made of.
#pragma once
#include "server_free.hpp"

#include "bitmap.hpp"

#include <vector>

namespace pg_cachectl {

// Runs of blocks kept sorted, disjoint and not touching (as a multirange
// keeps them); empty runs are never kept.
using RunList = std::vector<BlockRange>;

// Any runs made sorted and merged, without empty ones or ones that start
// before block 0.
RunList normalized_runs(RunList runs);

// Set arithmetic on normalized run lists.
RunList intersect_runs(const RunList &left, const RunList &right);
RunList subtract_runs(const RunList &left, const RunList &right);

} // namespace pg_cachectl
