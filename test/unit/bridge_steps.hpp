// bridge_steps.hpp — driving a residency report's fork to its end through
// the bridge, as the shim's step loop does (without its interrupts).
#pragma once

#include "pg_cachectl/residency.h"

#include <cstdint>

// The first status other than OK, or OK once the fork is done; *steps (if
// given) counts the calls.
inline cachectl_status scan_fork_to_end(cachectl_residency_report *report, int fork_number, const char *base_path,
                                        std::int64_t segment_bytes, cachectl_error *error, int *steps = nullptr) {
    cachectl_step step{};
    int calls = 0;
    do {
        ++calls;
        const cachectl_status status =
            cachectl_residency_report_step_fork(report, fork_number, base_path, segment_bytes, &step, error);
        if (status != CACHECTL_OK) {
            if (steps != nullptr)
                *steps = calls;
            return status;
        }
    } while (!step.finished);
    if (steps != nullptr)
        *steps = calls;
    return CACHECTL_OK;
}
