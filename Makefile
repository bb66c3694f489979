# pg_cachectl — PGXS build of the C shim (src/pg) and the C++ core (src/core).
#
#   make demo       install what the demo needs, build, start a throwaway cluster, walk through
#   make test       install what the tests need, build, install, unit + regression + scenario
#                   tests on the host's PostgreSQL (long tests shortened; about 8 minutes)
#   make test-all   the same on PostgreSQL 15, 17, 18 and 19 (what CI runs)
#   make unittest   the core's Catch2 tests, no server needed
#   make bench      install, run every benchmark, write bench/results/REPORT.md and plots
#                   (QUICK=1: small sizes, one run each; 18-20 minutes here, 11.5 of them autowarm's)
#   make pgxn-zip   the PGXN source distribution (debian/ builds the Debian package)

EXTENSION = pg_cachectl
MODULE_big = pg_cachectl
DATA = sql/pg_cachectl--1.0.sql sql/pg_cachectl--1.1.sql sql/pg_cachectl--1.2.sql sql/pg_cachectl--1.3.sql \
       sql/pg_cachectl--1.0--1.1.sql sql/pg_cachectl--1.1--1.2.sql sql/pg_cachectl--1.2--1.3.sql
PGFILEDESC = "pg_cachectl - see and control shared buffers and the OS page cache"

SHIM_OBJS = \
	src/pg/pg_cachectl.o \
	src/pg/action_progress.o \
	src/pg/cold.o \
	src/pg/core_errors.o \
	src/pg/core_ownership.o \
	src/pg/database_relations.o \
	src/pg/database_cache.o \
	src/pg/cache_metrics.o \
	src/pg/relation_set.o \
	src/pg/relation_guard.o \
	src/pg/internal_entry.o \
	src/pg/null_arguments.o \
	src/pg/transaction_block.o \
	src/pg/user_errors.o \
	src/pg/fork_files.o \
	src/pg/fork_residency.o \
	src/pg/snapshot_runs.o \
	src/pg/snapshot_plan.o \
	src/pg/snapshot_match.o \
	src/pg/snapshot_record.o \
	src/pg/snapshot_load.o \
	src/pg/snapshot_restore.o \
	src/pg/block_runs.o \
	src/pg/cluster_identity.o \
	src/pg/os_cache_jobs.o \
	src/pg/os_control.o \
	src/pg/os_map.o \
	src/pg/os_residency.o \
	src/pg/prewarm.o \
	src/pg/block_loader.o \
	src/pg/buffer_eviction.o \
	src/pg/both_layers.o \
	src/pg/call_arguments.o \
	src/pg/buffer_pool_pass.o \
	src/pg/buffer_scan_setup.o \
	src/pg/shared_buffers.o \
	src/pg/autowarm_settings.o \
	src/pg/autowarm_state.o \
	src/pg/autowarm_leader.o \
	src/pg/autowarm_database.o \
	src/pg/autowarm_load.o \
	src/pg/autowarm_start_marker.o \
	src/pg/autowarm_drop_database.o \
	src/pg/autowarm_status.o \
	src/pg/autowarm_wait.o \
	src/pg/read_tracking.o \
	src/pg/relation_reads.o \
	src/pg/relation_reads_counting.o \
	src/pg/relation_reads_sql.o \
	src/pg/plan_node_names.o \
	src/pg/explain_reads.o \
	src/pg/explain_option.o

CORE_OBJS = \
	src/core/bitmap.o \
	src/core/block_drawing.o \
	src/core/block_lists.o \
	src/core/block_residency.o \
	src/core/bridge_buffer_scan.o \
	src/core/bridge_common.o \
	src/core/bridge_maps.o \
	src/core/bridge_os_jobs.o \
	src/core/bridge_residency.o \
	src/core/bridge_restore_plans.o \
	src/core/buffer_scan.o \
	src/core/core_errors.o \
	src/core/engine_choice.o \
	src/core/file_calls.o \
	src/core/fork_block_map.o \
	src/core/fork_drop.o \
	src/core/fork_files.o \
	src/core/fork_prefetch.o \
	src/core/os_page_cache.o \
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
	relation_reads

PG_CPPFLAGS = -I$(srcdir)/include
PG_CXXFLAGS = -std=c++20 -Wextra -fvisibility=hidden -fvisibility-inlines-hidden
SHLIB_LINK = -lstdc++ -Wl,--version-script=$(srcdir)/src/pg/exports.map

# Before PGXS is included: its clean rule is defined only if this is set.
EXTRA_CLEAN = $(BUILT_FOR_FILE) $(UNIT_TEST_BINARY) $(UNIT_TEST_OBJS) $(SANITIZED_DIR) results regression.diffs regression.out tmp_check test/tmp_check

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
$(shell mkdir -p src/pg src/core)
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
UNIT_TEST_SOURCES = $(wildcard test/unit/*.cpp)
UNIT_TEST_BINARY = test/unit/unit_tests

UNIT_TEST_HEADERS = $(wildcard test/unit/*.hpp) $(CORE_HEADERS)
# One object per test file, so that make -j compiles them side by side and a
# change recompiles one file (Catch2's header is slow to compile).
UNIT_TEST_OBJS = $(UNIT_TEST_SOURCES:.cpp=.o)

test/unit/%.o: test/unit/%.cpp $(UNIT_TEST_HEADERS)
	$(CXX) $(CXXFLAGS) $(CORE_INCLUDES) -c -o $@ $<

$(UNIT_TEST_BINARY): $(UNIT_TEST_OBJS) $(CORE_OBJS)
	$(CXX) $(CXXFLAGS) -o $@ $(UNIT_TEST_OBJS) $(CORE_OBJS)

.PHONY: unittest unittest-sanitized demo test test-all bench
unittest: $(UNIT_TEST_BINARY)
	cd test/unit && ./unit_tests

# The same tests with AddressSanitizer and UndefinedBehaviorSanitizer (any
# finding fails the run); objects apart from the module's.
SANITIZED_DIR = test/unit/sanitized
SANITIZE_FLAGS = -std=c++20 -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
SANITIZED_CORE_OBJS = $(patsubst src/core/%.o,$(SANITIZED_DIR)/%.o,$(CORE_OBJS))

$(SANITIZED_DIR)/%.o: src/core/%.cpp $(CORE_HEADERS)
	@mkdir -p $(SANITIZED_DIR)
	$(CXX) $(SANITIZE_FLAGS) $(CORE_INCLUDES) -c -o $@ $<

SANITIZED_UNIT_TEST_OBJS = $(patsubst test/unit/%.cpp,$(SANITIZED_DIR)/test_%.o,$(UNIT_TEST_SOURCES))

$(SANITIZED_DIR)/test_%.o: test/unit/%.cpp $(UNIT_TEST_HEADERS)
	@mkdir -p $(SANITIZED_DIR)
	$(CXX) $(SANITIZE_FLAGS) $(CORE_INCLUDES) -c -o $@ $<

$(SANITIZED_DIR)/unit_tests: $(SANITIZED_UNIT_TEST_OBJS) $(SANITIZED_CORE_OBJS)
	$(CXX) $(SANITIZE_FLAGS) -o $@ $(SANITIZED_UNIT_TEST_OBJS) $(SANITIZED_CORE_OBJS)

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

# The four majors, the long tests at full length on the first (CI).
test-all:
	VERSIONS="$${VERSIONS:-15 17 18 19}" CACHECTL_LONG_TESTS=full bash test/run_all.sh

bench:
	bash scripts/install_deps.sh bench
	$(MAKE) install
	QUICK=$(QUICK) PG_CONFIG=$(PG_CONFIG) bash bench/run_all.sh


# PGXS tracks no header dependencies by default.
$(OBJS): $(CORE_HEADERS) $(wildcard src/pg/*.h)
$(shlib): src/pg/exports.map

print-regress-tests:
	@echo $(REGRESS)
