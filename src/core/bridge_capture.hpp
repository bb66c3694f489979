// bridge_capture.hpp — what every bridge function does at its boundary: run
// the C++ body and turn any exception into a status and the facts of what
// failed, so nothing is ever thrown across the C ABI.  Internal to the core.
#pragma once
#include "server_free.hpp"

#include "pg_cachectl/bridge_common.h"
#include "core_errors.hpp"
#include "engine_choice.hpp"

#include <cstdio>
#include <new>
#include <stdexcept>
#include <string>

namespace pg_cachectl {

cachectl_call bridge_call(SystemCall call) noexcept;
cachectl_file_kind bridge_file_kind(FileKind kind) noexcept;

// Starts *error afresh for a failure of this status.
inline void begin_error(cachectl_error *error, cachectl_status status) noexcept {
    *error = cachectl_error{};
    error->status = status;
}

inline void copy_path(cachectl_error *error, const std::string &path) noexcept {
    std::snprintf(error->path, sizeof error->path, "%s", path.c_str());
}

template <typename Body>
cachectl_status run_captured(cachectl_error *error, Body &&body) noexcept {
    cachectl_error ignored;
    if (error == nullptr)
        error = &ignored;
    try {
        return body();
    } catch (const SystemError &e) {
        begin_error(error, CACHECTL_FILE_ERROR);
        error->call = bridge_call(e.call());
        error->saved_errno = e.error_number();
        copy_path(error, e.path());
    } catch (const UnsafeFile &e) {
        begin_error(error, CACHECTL_UNSAFE_FILE);
        copy_path(error, e.path());
        error->file_kind = bridge_file_kind(e.kind());
        error->file_owner = e.owner();
        error->server_user = e.server_user();
    } catch (const NotSupported &e) {
        begin_error(error, CACHECTL_NOT_SUPPORTED);
        error->unsupported =
            e.reason() == Unsupported::cachestat_missing ? CACHECTL_CACHESTAT_MISSING : CACHECTL_CACHESTAT_FILTERED;
    } catch (const InvalidArgument &e) {
        begin_error(error, CACHECTL_INVALID_ARGUMENT);
        std::snprintf(error->bug, sizeof error->bug, "%s", e.what());
    } catch (const std::bad_alloc &) {
        begin_error(error, CACHECTL_OUT_OF_MEMORY);
    } catch (const std::exception &e) {
        begin_error(error, CACHECTL_INTERNAL_ERROR);
        std::snprintf(error->bug, sizeof error->bug, "%s", e.what());
    } catch (...) {
        begin_error(error, CACHECTL_INTERNAL_ERROR);
        std::snprintf(error->bug, sizeof error->bug, "an exception of unknown type");
    }
    return error->status;
}

// The setting's value as the core's choice (InvalidArgument if unknown);
// by reference, so an out-of-range value from C is never loaded as the enum.
EngineChoice engine_choice(const cachectl_os_engine &engine);

} // namespace pg_cachectl
