// core_errors.cpp — exceptions of the core.
#include "core_errors.hpp"

#include <cstring>

namespace pg_cachectl {

const char *system_call_name(SystemCall call) noexcept {
    switch (call) {
    case SystemCall::open:
        return "open";
    case SystemCall::stat:
        return "stat";
    case SystemCall::statfs:
        return "fstatfs";
    case SystemCall::mmap:
        return "mmap";
    case SystemCall::mincore:
        return "mincore";
    case SystemCall::cachestat:
        return "cachestat";
    case SystemCall::fadvise_willneed:
        return "posix_fadvise(WILLNEED)";
    case SystemCall::sysconf_page_size:
        return "sysconf(_SC_PAGESIZE)";
    }
    return "a system call";
}

namespace {

std::string describe(int error_number, SystemCall call, const std::string &path) {
    std::string text = std::string(system_call_name(call)) + " failed";
    if (!path.empty())
        text += " on \"" + path + "\"";
    return text + ": " + std::strerror(error_number);
}

} // namespace

SystemError::SystemError(int error_number, SystemCall call, std::string path)
    : std::runtime_error(describe(error_number, call, path)), error_number_(error_number), call_(call),
      path_(std::move(path)) {}

SystemError SystemError::on_file(const std::string &path) const {
    return SystemError(error_number_, call_, path_.empty() ? path : path_);
}

NotSupported::NotSupported(Unsupported reason)
    : std::runtime_error(reason == Unsupported::cachestat_missing ? "cachestat: the kernel lacks it"
                                                                  : "cachestat: a seccomp filter refuses it"),
      reason_(reason) {}

UnsafeFile::UnsafeFile(std::string path, FileKind kind)
    : std::runtime_error("not a regular file: \"" + path + "\""), path_(std::move(path)), kind_(kind) {}

UnsafeFile::UnsafeFile(std::string path, unsigned owner, unsigned server_user)
    : std::runtime_error("owned by user ID " + std::to_string(owner) + ": \"" + path + "\""), path_(std::move(path)),
      kind_(FileKind::regular), owner_(owner), server_user_(server_user) {}

} // namespace pg_cachectl
