// catch_pch.hpp — Catch2's header, precompiled once per flavour (the
// Makefile's $(UNIT_TEST_PCH)) and put before every test file with -include:
// parsing catch.hpp was half of each test file's compile.
// (no #pragma once: this file is compiled as the main file; catch.hpp has its guard)
#include <catch2/catch.hpp>
