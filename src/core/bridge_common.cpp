// bridge_common.cpp — the noexcept C functions of bridge_common.h: the OS
// page-cache engine, shared by every handle.
#include "pg_cachectl/bridge_common.h"

#include "bridge_capture.hpp"
#include "core_errors.hpp"
#include "os_page_cache.hpp"
#include "posix_handles.hpp"
#include "segment_math.hpp"

#include <cstring>

namespace pg_cachectl {

EngineChoice engine_choice(const cachectl_os_engine &engine) {
    // The C side may hand over any int: read the bytes, since loading a value
    // outside the enum's range as the enum type is undefined in C++.
    int value = 0;
    static_assert(sizeof value == sizeof engine, "a C enum is an int here");
    std::memcpy(&value, &engine, sizeof value);
    switch (value) {
    case CACHECTL_ENGINE_CACHESTAT:
        return EngineChoice::cachestat;
    case CACHECTL_ENGINE_MINCORE:
        return EngineChoice::mincore;
    case CACHECTL_ENGINE_AUTO:
        return EngineChoice::automatic;
    }
    throw InvalidArgument("unknown OS cache engine");
}

cachectl_call bridge_call(SystemCall call) noexcept {
    switch (call) {
    case SystemCall::open:
        return CACHECTL_CALL_OPEN;
    case SystemCall::stat:
        return CACHECTL_CALL_STAT;
    case SystemCall::statfs:
        return CACHECTL_CALL_STATFS;
    case SystemCall::mmap:
        return CACHECTL_CALL_MMAP;
    case SystemCall::mincore:
        return CACHECTL_CALL_MINCORE;
    case SystemCall::cachestat:
        return CACHECTL_CALL_CACHESTAT;
    case SystemCall::fadvise_willneed:
        return CACHECTL_CALL_FADVISE_WILLNEED;
    case SystemCall::sysconf_page_size:
        return CACHECTL_CALL_SYSCONF_PAGE_SIZE;
    }
    return CACHECTL_CALL_NONE;
}

cachectl_file_kind bridge_file_kind(FileKind kind) noexcept {
    switch (kind) {
    case FileKind::regular:
        return CACHECTL_FILE_REGULAR;
    case FileKind::directory:
        return CACHECTL_FILE_DIRECTORY;
    case FileKind::fifo:
        return CACHECTL_FILE_FIFO;
    case FileKind::character_device:
        return CACHECTL_FILE_CHARACTER_DEVICE;
    case FileKind::block_device:
        return CACHECTL_FILE_BLOCK_DEVICE;
    case FileKind::socket:
        return CACHECTL_FILE_SOCKET;
    case FileKind::symbolic_link:
        return CACHECTL_FILE_SYMBOLIC_LINK;
    case FileKind::unknown:
        break;
    }
    return CACHECTL_FILE_UNKNOWN;
}

} // namespace pg_cachectl

namespace {

using pg_cachectl::engine_choice;
using pg_cachectl::run_captured;

} // namespace

extern "C" {

cachectl_cachestat_support cachectl_probe_cachestat(const char *owned_file_path) noexcept {
    cachectl_cachestat_support result = CACHECTL_CACHESTAT_MISSING;
    cachectl_error ignored{};
    cachectl_status status = run_captured(&ignored, [&] {
        if (auto remembered = pg_cachectl::remembered_cachestat_support()) {
            result = static_cast<cachectl_cachestat_support>(*remembered);
            return CACHECTL_OK;
        }
        pg_cachectl::UniqueFd fd = pg_cachectl::open_relation_file(owned_file_path);
        pg_cachectl::CachestatSupport support = pg_cachectl::probe_cachestat_on(fd.get());
        pg_cachectl::remember_cachestat_support(support);
        result = static_cast<cachectl_cachestat_support>(support);
        return CACHECTL_OK;
    });
    // A probe that could not even open its file proves nothing: say missing,
    // so the automatic engine falls back to mincore, which always works.
    return status == CACHECTL_OK ? result : CACHECTL_CACHESTAT_MISSING;
}

cachectl_status cachectl_resolve_engine(cachectl_os_engine choice, const char *path, cachectl_os_engine *resolved,
                                        cachectl_error *error) noexcept {
    return run_captured(error, [&] {
        if (path == nullptr || resolved == nullptr)
            throw pg_cachectl::InvalidArgument("a path and a result are required");
        pg_cachectl::UniqueFd fd = pg_cachectl::open_relation_file(path);
        pg_cachectl::Engine engine = pg_cachectl::choose_engine(engine_choice(choice), fd.get());
        *resolved = engine == pg_cachectl::Engine::cachestat ? CACHECTL_ENGINE_CACHESTAT : CACHECTL_ENGINE_MINCORE;
        return CACHECTL_OK;
    });
}

int64_t cachectl_os_page_size() noexcept {
    try {
        return pg_cachectl::os_page_size();
    } catch (...) {
        return -1; // sysconf failed: the shim reports it
    }
}

const char *cachectl_engine_name(cachectl_os_engine engine) noexcept {
    switch (engine) {
    case CACHECTL_ENGINE_CACHESTAT:
        return "cachestat";
    case CACHECTL_ENGINE_MINCORE:
        return "mincore";
    case CACHECTL_ENGINE_AUTO:
        return "auto";
    }
    return "unknown";
}

} // extern "C"
