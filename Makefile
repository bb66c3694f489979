# pg_cachectl — PGXS build of the C shim (src/pg) and the C++ core (src/core).
#
#   make demo       install what the demo needs, build, start a throwaway cluster, walk through
#   make test       install what the tests need, build, install, unit + regression + scenario
#                   tests on the host's PostgreSQL (long tests shortened; 6-8 minutes measured)
#   make test-all   the same on PostgreSQL 15, 17, 18 and 19 (what CI runs)
#   make unittest   the core's Catch2 tests, no server needed
#   make bench      install, run every benchmark, write bench/results/REPORT.md and plots
#                   (QUICK=1: small sizes, one run each; 18-20 minutes here, 11.5 of them autowarm's)
#   make chaos      install, then random faults across a three-node Patroni cluster under
#                   write load for CHAOS_MINUTES (30), checked at the end (bench/README.md)
#   make pgxn-zip   the PGXN source distribution (debian/ builds the Debian package)

EXTENSION = pg_cachectl
MODULE_big = pg_cachectl
DATA = sql/pg_cachectl--1.0.sql sql/pg_cachectl--1.1.sql sql/pg_cachectl--1.2.sql sql/pg_cachectl--1.3.sql \
       sql/pg_cachectl--1.4.sql \
       sql/pg_cachectl--1.0--1.1.sql sql/pg_cachectl--1.1--1.2.sql sql/pg_cachectl--1.2--1.3.sql \
       sql/pg_cachectl--1.3--1.4.sql
PGFILEDESC = "pg_cachectl - see and control shared buffers and the OS page cache"

SHIM_OBJS = \
	src/pg/pg_cachectl.o \
	src/pg/advice/advice_anchors.o \
	src/pg/advice/advice_pool_watch.o \
	src/pg/advice/advice_sampler.o \
	src/pg/advice/advice_settings.o \
	src/pg/advice/advice_sql.o \
	src/pg/advice/advice_state.o \
	src/pg/api/action_progress.o \
	src/pg/api/block_runs.o \
	src/pg/api/call_arguments.o \
	src/pg/api/core_errors.o \
	src/pg/api/core_ownership.o \
	src/pg/api/internal_entry.o \
	src/pg/api/null_arguments.o \
	src/pg/api/settings.o \
	src/pg/api/transaction_block.o \
	src/pg/api/user_errors.o \
	src/pg/relation_set/relation_set.o \
	src/pg/relation_set/database_relations.o \
	src/pg/relation_set/fork_files.o \
	src/pg/relation_set/relation_guard.o \
	src/pg/shared_buffers/shared_buffers.o \
	src/pg/shared_buffers/buffer_eviction.o \
	src/pg/shared_buffers/buffer_pool_pass.o \
	src/pg/shared_buffers/buffer_scan_setup.o \
	src/pg/os_cache/os_cache.o \
	src/pg/os_cache/fork_residency.o \
	src/pg/os_cache/os_control.o \
	src/pg/os_cache/os_map.o \
	src/pg/os_cache/os_residency.o \
	src/pg/both_layers/both_layers.o \
	src/pg/both_layers/block_loader.o \
	src/pg/both_layers/cold.o \
	src/pg/both_layers/prewarm.o \
	src/pg/snapshots/cluster_identity.o \
	src/pg/snapshots/snapshot_load.o \
	src/pg/snapshots/snapshot_match.o \
	src/pg/snapshots/snapshot_plan.o \
	src/pg/snapshots/snapshot_record.o \
	src/pg/snapshots/snapshot_restore.o \
	src/pg/snapshots/snapshot_runs.o \
	src/pg/cache_metrics/cache_metrics.o \
	src/pg/cache_metrics/database_cache.o \
	src/pg/autowarm/autowarm_database.o \
	src/pg/autowarm/autowarm_drop_database.o \
	src/pg/autowarm/autowarm_leader.o \
	src/pg/autowarm/autowarm_load.o \
	src/pg/autowarm/autowarm_settings.o \
	src/pg/autowarm/autowarm_start_marker.o \
	src/pg/autowarm/autowarm_state.o \
	src/pg/autowarm/autowarm_status.o \
	src/pg/autowarm/autowarm_wait.o \
	src/pg/reads/explain_option.o \
	src/pg/reads/explain_reads.o \
	src/pg/reads/plan_node_names.o \
	src/pg/reads/read_tracking.o \
	src/pg/reads/relation_reads.o \
	src/pg/reads/relation_reads_counting.o \
	src/pg/reads/relation_reads_sql.o

CORE_OBJS = \
	src/core/bitmap.o \
	src/core/block_drawing.o \
	src/core/block_lists.o \
	src/core/block_residency.o \
	src/core/block_sample.o \
	src/core/bridge_buffer_scan.o \
	src/core/bridge_common.o \
	src/core/bridge_maps.o \
	src/core/bridge_os_jobs.o \
	src/core/bridge_pool_advice.o \
	src/core/bridge_residency.o \
	src/core/bridge_restore_plans.o \
	src/core/buffer_scan.o \
	src/core/clock_simulation.o \
	src/core/core_errors.o \
	src/core/engine_choice.o \
	src/core/file_calls.o \
	src/core/fork_block_map.o \
	src/core/fork_drop.o \
	src/core/fork_files.o \
	src/core/fork_prefetch.o \
	src/core/os_page_cache.o \
	src/core/pool_advice.o \
	src/core/pool_observer.o \
	src/core/pool_size_curve.o \
	src/core/posix_handles.o \
	src/core/read_sources.o \
	src/core/bridge_read_sources.o \
	src/core/relation_split.o \
	src/core/residency_report.o \
	src/core/restore_planner.o \
	src/core/run_lists.o \
	src/core/segment_math.o \
	src/core/storage_facts.o \
	src/core/throttle.o

OBJS = $(SHIM_OBJS) $(CORE_OBJS)

# pg_regress suites (sql/NAME.sql, expected/NAME.out), run by test/run_regress.sh.
REGRESS = \
	install \
	os_residency \
	relation_kinds \
	relation_sets \
	shared_residency \
	residency_errors \
	eviction \
	eviction_errors \
	os_control \
	os_control_errors \
	both_layers \
	both_layers_errors \
	hostile_inputs \
	privileges \
	role_sets \
	snapshots \
	snapshots_errors \
	cold_assertions \
	metrics \
	metrics_errors \
	autowarm \
	read_sources \
	relation_reads \
	advice

# The shim includes its own headers by area ("api/api.h"), the C ABI as
# "pg_cachectl/bridge.h".
PG_CPPFLAGS = -I$(srcdir)/include -I$(srcdir)/src/pg
PG_CXXFLAGS = -std=c++20 -Wextra -fvisibility=hidden -fvisibility-inlines-hidden
SHLIB_LINK = -lstdc++ -Wl,--version-script=$(srcdir)/src/pg/exports.map

# Before PGXS is included: its clean rule is defined only if this is set.
EXTRA_CLEAN = $(BUILT_FOR_FILE) $(UNIT_TEST_BINARY) $(UNIT_TEST_OBJS) test/unit/main.o $(UNIT_TEST_PCH_DIR) $(SANITIZED_DIR) results regression.diffs regression.out tmp_check test/tmp_check

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)

# Link with the C++ driver, so libstdc++ is really a dependency of the
# module (Debian's server happens to load it through ICU, which would hide
# a missing link).
override COMPILER = $(CXX) $(CXXFLAGS)

# No LLVM bitcode: it only serves JIT inlining of functions called inside
# expressions, and these are set-returning I/O functions; clang would also
# need the core's -std=c++20, which PGXS's bitcode rule does not pass.
override with_llvm = no

include $(PGXS)

# Objects belong to the server they were built for.  PGXS does not notice a
# change of PG_CONFIG (make, make install and make test would reuse a module
# built for another major: "undefined symbol" at load), so the build records
# which installation it is for in .built-for and, when that differs, removes
# the objects before anything is made.  Goals that build nothing skip it.
BUILT_FOR_FILE = .built-for
BUILT_FOR := $(abspath $(shell command -v $(PG_CONFIG))) $(VERSION) $(bindir)
ifneq ($(filter-out clean distclean print-regress-tests demo test test-all pgxn-zip,$(MAKECMDGOALS))$(if $(MAKECMDGOALS),,all),)
ifneq ($(BUILT_FOR),$(shell cat $(BUILT_FOR_FILE) 2>/dev/null))
$(shell rm -f $(OBJS) $(shlib) $(UNIT_TEST_BINARY) && echo '$(BUILT_FOR)' > $(BUILT_FOR_FILE))
endif
endif

# A VPATH build (Debian's pg_buildext builds in build-VERSION/, see debian/)
# writes its objects into directories of its own, which must exist.
ifdef VPATH
$(shell mkdir -p src/core $(sort $(dir $(SHIM_OBJS))))
endif

# The core is compiled without the server's include path (no $(CPPFLAGS)),
# so an #include "postgres.h" there cannot build: the core stays server-free.
# It keeps the server build's _FORTIFY_SOURCE level (Debian's has one).
# include/ holds the C ABI only; the core's own headers sit in src/core.
CORE_INCLUDES = -I$(srcdir)/include -I$(srcdir)/src/core
CORE_HEADERS = $(wildcard include/pg_cachectl/*.h src/core/*.hpp)
CORE_HARDENING = $(filter -D_FORTIFY_SOURCE%,$(CPPFLAGS))
src/core/%.o: src/core/%.cpp
	$(CXX) $(CXXFLAGS) $(CFLAGS_SL) $(CORE_HARDENING) $(CORE_INCLUDES) -c -o $@ $<

# ---- unit tests of the core (Catch2, no server) ----
# Two flavours of one binary: the plain one links the module's own core
# objects; the sanitized one has its own core and test objects, built with
# AddressSanitizer and UndefinedBehaviorSanitizer.  test/run_unit.sh builds
# and runs the two side by side and prints the time of each step.
#
# Where the time went (measured from nothing, 2 cores): Catch2's runner
# compiled from catch.hpp, once per flavour, cost 39 s of CPU at -O2 -g (its
# sanitized copy several minutes of wall under load), and each test file 3-10 s
# at -O2 or sanitized -O1.  So the runner comes precompiled from the catch2
# package (libCatch2WithMain.a: Catch2's implementation and main) when it is
# there, and test files are compiled at -O0: they hold assertions, not code
# worth optimising.  The core keeps its flags (the module's for the plain
# flavour, -O1 under the sanitizers).
UNIT_TEST_SOURCES = $(filter-out test/unit/main.cpp,$(wildcard test/unit/*.cpp))
UNIT_TEST_BINARY = test/unit/unit_tests
CATCH_MAIN_LIBRARY := $(firstword $(wildcard /usr/lib/libCatch2WithMain.a /usr/lib/*/libCatch2WithMain.a \
	/usr/local/lib/libCatch2WithMain.a))
# Without the package's library, Catch2's main is compiled from main.cpp (one
# object per flavour, -O0, no debug information: about 14 s of CPU).
UNIT_TEST_MAIN_FLAGS = -std=c++20 -O0

UNIT_TEST_HEADERS = $(wildcard test/unit/*.hpp) $(CORE_HEADERS)
UNIT_TEST_FLAGS = -std=c++20 -g -O0 -Wall -Wextra
# One object per test file, so that make -j compiles them side by side and a
# change recompiles one file (Catch2's header is slow to compile).
UNIT_TEST_OBJS = $(UNIT_TEST_SOURCES:.cpp=.o)
UNIT_TEST_MAIN = $(if $(CATCH_MAIN_LIBRARY),$(CATCH_MAIN_LIBRARY),test/unit/main.o)

test/unit/main.o: test/unit/main.cpp
	$(CXX) $(UNIT_TEST_MAIN_FLAGS) -c -o $@ $<

# catch.hpp precompiled, per flavour (a PCH serves only the flags it was
# made with); it saves about 1.2 s of CPU a test file.  A PCH that does not
# fit is ignored with a warning (-Winvalid-pch) and the header parsed.
UNIT_TEST_PCH_DIR = test/unit/pch
UNIT_TEST_PCH = $(UNIT_TEST_PCH_DIR)/plain/catch_pch.hpp.gch
SANITIZED_UNIT_TEST_PCH = $(UNIT_TEST_PCH_DIR)/sanitized/catch_pch.hpp.gch
USE_PCH = -Winvalid-pch -I$(dir $(1)) -include catch_pch.hpp

$(UNIT_TEST_PCH_DIR)/%/catch_pch.hpp: test/unit/catch_pch.hpp
	@mkdir -p $(dir $@)
	cp $< $@

$(UNIT_TEST_PCH): $(UNIT_TEST_PCH_DIR)/plain/catch_pch.hpp
	$(CXX) $(UNIT_TEST_FLAGS) -x c++-header -o $@ $<

test/unit/%.o: test/unit/%.cpp $(UNIT_TEST_HEADERS) $(UNIT_TEST_PCH)
	$(CXX) $(UNIT_TEST_FLAGS) $(call USE_PCH,$(UNIT_TEST_PCH)) $(CORE_INCLUDES) -c -o $@ $<

$(UNIT_TEST_BINARY): $(UNIT_TEST_OBJS) $(CORE_OBJS) $(UNIT_TEST_MAIN)
	$(CXX) -o $@ $(UNIT_TEST_OBJS) $(CORE_OBJS) $(UNIT_TEST_MAIN)

.PHONY: unittest unittest-sanitized demo test test-all bench chaos
unittest: $(UNIT_TEST_BINARY)
	cd test/unit && ./unit_tests

# The same tests with AddressSanitizer and UndefinedBehaviorSanitizer (any
# finding fails the run); objects apart from the module's.  Catch2's runner
# is not instrumented (the package's library, or main.cpp without
# -fsanitize); every test and all of the core are.
SANITIZED_DIR = test/unit/sanitized
SANITIZERS = -fsanitize=address,undefined -fno-sanitize-recover=all
SANITIZE_FLAGS = -std=c++20 -g -O1 -fno-omit-frame-pointer $(SANITIZERS)
SANITIZED_TEST_FLAGS = -std=c++20 -g -O0 $(SANITIZERS)
SANITIZED_CORE_OBJS = $(patsubst src/core/%.o,$(SANITIZED_DIR)/%.o,$(CORE_OBJS))
SANITIZED_UNIT_TEST_MAIN = $(if $(CATCH_MAIN_LIBRARY),$(CATCH_MAIN_LIBRARY),$(SANITIZED_DIR)/test_main.o)

$(SANITIZED_DIR)/%.o: src/core/%.cpp $(CORE_HEADERS)
	@mkdir -p $(SANITIZED_DIR)
	$(CXX) $(SANITIZE_FLAGS) $(CORE_INCLUDES) -c -o $@ $<

SANITIZED_UNIT_TEST_OBJS = $(patsubst test/unit/%.cpp,$(SANITIZED_DIR)/test_%.o,$(UNIT_TEST_SOURCES))

$(SANITIZED_DIR)/test_main.o: test/unit/main.cpp
	@mkdir -p $(SANITIZED_DIR)
	$(CXX) $(UNIT_TEST_MAIN_FLAGS) -c -o $@ $<

$(SANITIZED_UNIT_TEST_PCH): $(UNIT_TEST_PCH_DIR)/sanitized/catch_pch.hpp
	$(CXX) $(SANITIZED_TEST_FLAGS) -x c++-header -o $@ $<

$(SANITIZED_DIR)/test_%.o: test/unit/%.cpp $(UNIT_TEST_HEADERS) $(SANITIZED_UNIT_TEST_PCH)
	@mkdir -p $(SANITIZED_DIR)
	$(CXX) $(SANITIZED_TEST_FLAGS) $(call USE_PCH,$(SANITIZED_UNIT_TEST_PCH)) $(CORE_INCLUDES) -c -o $@ $<

$(SANITIZED_DIR)/unit_tests: $(SANITIZED_UNIT_TEST_OBJS) $(SANITIZED_CORE_OBJS) $(SANITIZED_UNIT_TEST_MAIN)
	$(CXX) $(SANITIZERS) -o $@ $(SANITIZED_UNIT_TEST_OBJS) $(SANITIZED_CORE_OBJS) $(SANITIZED_UNIT_TEST_MAIN)

unittest-sanitized: $(SANITIZED_DIR)/unit_tests
	cd test/unit && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ./sanitized/unit_tests

demo:
	bash scripts/demo.sh

# The PGXN source distribution, NAME-VERSION.zip of the committed tree (HEAD),
# after checking its META.json against the PGXN Meta Spec and the tree.
.PHONY: pgxn-zip
pgxn-zip:
	bash scripts/pgxn_zip.sh

test:
	bash test/run_all.sh

# The four majors, the long tests at full length on the first, every
# scenario file (make test leaves those marked "make test-all only"; CI).
test-all:
	VERSIONS="$${VERSIONS:-15 17 18 19}" CACHECTL_LONG_TESTS=full CACHECTL_TAP_ALL=1 bash test/run_all.sh

bench:
	bash scripts/install_deps.sh bench
	$(MAKE) install
	QUICK=$(QUICK) PG_CONFIG=$(PG_CONFIG) bash bench/run_all.sh

# Random faults across a three-node Patroni cluster under write load
# (CHAOS_MINUTES, default 30; bench/README.md, "chaos.sh").
chaos:
	$(MAKE) install
	PG_CONFIG=$(PG_CONFIG) bash bench/chaos.sh


# PGXS tracks no header dependencies by default.
$(OBJS): $(CORE_HEADERS) $(wildcard src/pg/*/*.h)
$(shlib): src/pg/exports.map

print-regress-tests:
	@echo $(REGRESS)
