// buffer_scan_handle.hpp — the C++ object behind bridge.h's opaque
// cachectl_buffer_scan, shared by the bridge files that use it.  Internal to
// the core.
#pragma once
#include "server_free.hpp"

#include "buffer_scan.hpp"

#include <vector>

// A buffer-pool pass and, once finished, its rows.
struct cachectl_buffer_scan {
    pg_cachectl::BufferScan scan;
    std::vector<pg_cachectl::BufferScan::Row> rows;
    // set when a match or count call failed: finish() then fails rather
    // than return totals that silently miss buffers
    mutable bool lost_buffer = false;
};
