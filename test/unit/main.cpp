// main.cpp — Catch2 supplies main() for the core's unit tests.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
