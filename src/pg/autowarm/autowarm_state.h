/*
 * autowarm_state.h — what the autowarm processes tell each other and the
 * status view, in shared memory: one slot per database the leader watches.
 */
#ifndef PG_CACHECTL_AUTOWARM_STATE_H
#define PG_CACHECTL_AUTOWARM_STATE_H

#include "storage/spin.h"
#include "utils/timestamp.h"

/* More databases than this are not warmed (a WARNING names the first left out). */
#define AUTOWARM_MAX_DATABASES 64
#define AUTOWARM_ERROR_LENGTH 256
#define AUTOWARM_FINGERPRINT_LENGTH 96

typedef enum AutowarmPhase
{
	AUTOWARM_STARTING,			/* launched, not yet connected */
	AUTOWARM_IDLE,				/* primary, between snapshots */
	AUTOWARM_RECORDING,
	AUTOWARM_LOADING,
	AUTOWARM_FOLLOWING,			/* standby, waiting for a newer snapshot */
	AUTOWARM_DISABLED,
	AUTOWARM_FAILED				/* the worker ended on an error; restarted after a delay */
} AutowarmPhase;

/* What one load did (the start load and the last follow load are kept apart). */
typedef struct AutowarmLoadFigures
{
	TimestampTz started;
	TimestampTz finished;		/* 0 while it runs */
	int64		shared_blocks_loaded;
	int64		os_blocks_loaded;
	int64		relations_skipped;
	double		seconds;
} AutowarmLoadFigures;

typedef struct AutowarmDatabase
{
	bool		in_use;
	Oid			database;
	char		database_name[NAMEDATALEN]; /* as the leader last read it */
	int			pid;			/* of its worker, 0 when none runs */
	AutowarmPhase phase;
	bool		standby;
	bool		leave_requested;	/* DROP DATABASE, connections disallowed: leave now */
	bool		relaunch_now;	/* it ended to reconnect as a new role: no delay */
	bool		start_load_done;	/* survives the worker's restarts, not the server's */
	/* the label's rows as the last load saw them: their newest taken_at, as int64 text */
	char		loaded_fingerprint[AUTOWARM_FINGERPRINT_LENGTH];
	TimestampTz snapshot_at;
	int64		snapshot_rows_written;
	int64		snapshot_wal_bytes;
	double		snapshot_seconds;
	AutowarmLoadFigures start_load;
	AutowarmLoadFigures follow_load;
	int64		snapshots_taken;
	int64		loads_done;
	int64		failures;
	TimestampTz last_error_at;
	char		last_error[AUTOWARM_ERROR_LENGTH];
} AutowarmDatabase;

typedef struct AutowarmShared
{
	slock_t		mutex;			/* guards every field of every slot */
	AutowarmDatabase databases[AUTOWARM_MAX_DATABASES];
} AutowarmShared;

/* NULL unless pg_cachectl is in shared_preload_libraries. */
extern AutowarmShared *autowarm_shared;

extern void autowarm_state_request(void);

/* The slot of a database, made if missing (NULL when all are taken). */
extern AutowarmDatabase *autowarm_slot_for(Oid database, const char *name);
extern AutowarmDatabase *autowarm_slot_find(Oid database);
extern void autowarm_slot_release(Oid database);

/*
 * Updates of the shared state (any slot, or the leader's fields) under its
 * one mutex; a slot pointer stays valid for the server's life.
 */
#define AUTOWARM_SHARED_UPDATE(statements) \
	do { \
		SpinLockAcquire(&autowarm_shared->mutex); \
		statements; \
		SpinLockRelease(&autowarm_shared->mutex); \
	} while (0)

extern void autowarm_record_error(AutowarmDatabase *slot, const char *message);

/* Asks the worker of a database to leave it (it wakes at once); its pid, 0 when none runs. */
extern int	autowarm_ask_to_leave(Oid database);
extern const char *autowarm_phase_name(AutowarmPhase phase);

#endif							/* PG_CACHECTL_AUTOWARM_STATE_H */
