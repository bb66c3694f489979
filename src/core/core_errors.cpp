// core_errors.cpp — exceptions of the core.
#include "core_errors.hpp"

#include <cstring>

namespace pg_cachectl {

SystemError::SystemError(int error_number, const std::string &what_failed)
    : std::runtime_error(what_failed + ": " + std::strerror(error_number)), error_number_(error_number),
      what_failed_(what_failed) {}

SystemError SystemError::on_file(const std::string &path) const {
    return SystemError(error_number_, what_failed_ + " on \"" + path + "\"");
}

} // namespace pg_cachectl
