// engine_choice.cpp — resolving cachectl.os_engine for one open file.
#include "engine_choice.hpp"

#include "core_errors.hpp"
#include "os_page_cache.hpp"

#include <optional>

namespace pg_cachectl {

Engine choose_engine(EngineChoice choice, int fd) {
    if (choice == EngineChoice::mincore)
        return Engine::mincore;

    // The shim probes once on a file the server owns (bridge_common.h); without that
    // probe, this file's own answer is the best there is.
    std::optional<CachestatSupport> support = remembered_cachestat_support();
    if (!support)
        support = probe_cachestat_on(fd);

    if (choice == EngineChoice::cachestat) {
        if (*support == CachestatSupport::missing)
            throw NotSupported(Unsupported::cachestat_missing);
        if (*support == CachestatSupport::filtered)
            throw NotSupported(Unsupported::cachestat_filtered);
        return Engine::cachestat;
    }
    if (*support == CachestatSupport::available && !cachestat_unreliable_on(fd))
        return Engine::cachestat;
    return Engine::mincore;
}

} // namespace pg_cachectl
