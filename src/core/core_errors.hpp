// core_errors.hpp — the exceptions the core throws; the bridge turns each
// into a cachectl_status (see bridge.cpp), never letting one escape.
#pragma once
#include "server_free.hpp"

#include <stdexcept>
#include <string>

namespace pg_cachectl {

// A system call failed: keeps errno so the shim can pick the SQLSTATE.
class SystemError : public std::runtime_error {
  public:
    // what_failed names the call ("mincore failed"); the message adds strerror.
    SystemError(int error_number, const std::string &what_failed);
    int error_number() const { return error_number_; }

    // The same failure, naming the file it happened on.
    SystemError on_file(const std::string &path) const;

  private:
    int error_number_;
    std::string what_failed_;
};

// The caller forced something this system cannot do (e.g. cachestat on 6.1).
class NotSupported : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// A relation file that is not what PostgreSQL makes: something other than a
// regular file (a FIFO, a device, a directory, a socket), or a file the
// server's user does not own.  The message names the file and what was found.
class UnsafeFile : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// The caller passed an impossible argument.
class InvalidArgument : public std::invalid_argument {
  public:
    using std::invalid_argument::invalid_argument;
};

} // namespace pg_cachectl
