// server_free.hpp — included first by every C++ core header.
//
// The core must build without PostgreSQL's server headers: their macros
// (elog, palloc, Assert, ...) and longjmp-based errors cannot coexist with
// C++ destructors.  The Makefile also compiles src/core without the server
// include path, so including postgres.h there fails to build.
#pragma once

#if defined(POSTGRES_H) || defined(C_H) || defined(PG_CONFIG_H)
#error "the pg_cachectl C++ core must not include PostgreSQL server headers"
#endif
