// bridge_capture.hpp — what every bridge function does at its boundary:
// run the C++ body and turn any exception into a status and a message, so
// nothing is ever thrown across the C ABI.  Internal to the core.
#pragma once
#include "server_free.hpp"

#include "pg_cachectl/bridge_common.h"
#include "core_errors.hpp"
#include "engine_choice.hpp"

#include <cstdio>
#include <new>
#include <stdexcept>

namespace pg_cachectl {

inline void set_error(cachectl_error *error, cachectl_status status, int saved_errno, const char *message) {
    if (error == nullptr)
        return;
    error->status = status;
    error->saved_errno = saved_errno;
    std::snprintf(error->message, sizeof error->message, "%s", message);
}

template <typename Body>
cachectl_status run_captured(cachectl_error *error, Body &&body) noexcept {
    try {
        return body();
    } catch (const SystemError &e) {
        set_error(error, CACHECTL_FILE_ERROR, e.error_number(), e.what());
        return CACHECTL_FILE_ERROR;
    } catch (const UnsafeFile &e) {
        set_error(error, CACHECTL_UNSAFE_FILE, 0, e.what());
        return CACHECTL_UNSAFE_FILE;
    } catch (const NotSupported &e) {
        set_error(error, CACHECTL_NOT_SUPPORTED, 0, e.what());
        return CACHECTL_NOT_SUPPORTED;
    } catch (const InvalidArgument &e) {
        set_error(error, CACHECTL_INVALID_ARGUMENT, 0, e.what());
        return CACHECTL_INVALID_ARGUMENT;
    } catch (const std::bad_alloc &) {
        set_error(error, CACHECTL_OUT_OF_MEMORY, 0, "out of memory");
        return CACHECTL_OUT_OF_MEMORY;
    } catch (const std::exception &e) {
        set_error(error, CACHECTL_INTERNAL_ERROR, 0, e.what());
        return CACHECTL_INTERNAL_ERROR;
    } catch (...) {
        set_error(error, CACHECTL_INTERNAL_ERROR, 0, "unknown exception in the pg_cachectl core");
        return CACHECTL_INTERNAL_ERROR;
    }
}

// The setting's value as the core's choice (InvalidArgument if unknown);
// by reference, so an out-of-range value from C is never loaded as the enum.
EngineChoice engine_choice(const cachectl_os_engine &engine);

} // namespace pg_cachectl
