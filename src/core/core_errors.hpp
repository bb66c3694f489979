// core_errors.hpp — the exceptions the core throws.  Each says what failed
// (which call, errno, which file; what a refused file is), never words for
// the user: the bridge copies the facts into a cachectl_error
// (bridge_capture.hpp) and the shim words the message.  what() is for
// developers and tests only.
#pragma once
#include "server_free.hpp"

#include <stdexcept>
#include <string>

namespace pg_cachectl {

// The system calls whose failures the shim words (cachectl_call).
enum class SystemCall { open, stat, statfs, mmap, mincore, cachestat, fadvise_willneed, sysconf_page_size };

const char *system_call_name(SystemCall call) noexcept;

// A system call failed: keeps errno so the shim can pick the SQLSTATE.
class SystemError : public std::runtime_error {
  public:
    SystemError(int error_number, SystemCall call, std::string path = {});
    int error_number() const { return error_number_; }
    SystemCall call() const { return call_; }
    const std::string &path() const { return path_; }

    // The same failure, naming the file it happened on, unless a deeper
    // frame already named it.
    SystemError on_file(const std::string &path) const;

  private:
    int error_number_;
    SystemCall call_;
    std::string path_;
};

// Why the caller's forced engine cannot run here (e.g. cachestat on 6.1).
enum class Unsupported { cachestat_missing, cachestat_filtered };

class NotSupported : public std::runtime_error {
  public:
    explicit NotSupported(Unsupported reason);
    Unsupported reason() const { return reason_; }

  private:
    Unsupported reason_;
};

// What stands where a relation file should be, when it is not one.
enum class FileKind { regular, directory, fifo, character_device, block_device, socket, symbolic_link, unknown };

// A relation file that is not what PostgreSQL makes: something other than a
// regular file (a FIFO, a device, a directory, a socket), or a file the
// server's user does not own.
class UnsafeFile : public std::runtime_error {
  public:
    // Not a regular file.
    UnsafeFile(std::string path, FileKind kind);
    // A regular file of another user.
    UnsafeFile(std::string path, unsigned owner, unsigned server_user);

    const std::string &path() const { return path_; }
    FileKind kind() const { return kind_; }
    unsigned owner() const { return owner_; }
    unsigned server_user() const { return server_user_; }

  private:
    std::string path_;
    FileKind kind_;
    unsigned owner_ = 0;
    unsigned server_user_ = 0;
};

// The caller passed an impossible argument: a bug in the caller.
class InvalidArgument : public std::invalid_argument {
  public:
    using std::invalid_argument::invalid_argument;
};

} // namespace pg_cachectl
