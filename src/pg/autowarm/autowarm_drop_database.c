/*
 * autowarm_drop_database.c — a ProcessUtility hook that, before DROP
 * DATABASE runs, asks that database's autowarm worker to leave and waits
 * (5 s at most) until its process is gone.  Without it a database owner's
 * DROP DATABASE ... WITH (FORCE) failed with 42501: the worker runs as a
 * superuser, whom the owner may not terminate.  Only a role that may drop
 * the database sends the worker away (another would only make it leave for
 * nothing); the leader relaunches it when the drop failed.
 */
#include "postgres.h"

#include "catalog/pg_database.h"
#include "commands/dbcommands.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "storage/latch.h"
#include "storage/procarray.h"
#include "tcop/utility.h"
#include "utils/acl.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

#include "autowarm/autowarm_drop_database.h"
#include "autowarm/autowarm_state.h"

#define LEAVE_WAIT_MILLISECONDS 5000

static ProcessUtility_hook_type previous_utility_hook = NULL;

static bool
may_drop(Oid database)
{
#if PG_VERSION_NUM >= 160000
	return object_ownercheck(DatabaseRelationId, database, GetUserId());
#else
	return pg_database_ownercheck(database, GetUserId());
#endif
}

static void
send_worker_away(const char *name)
{
	Oid			database = get_database_oid(name, true);
	int			pid;
	TimestampTz give_up;

	if (!OidIsValid(database) || !may_drop(database))
		return;
	pid = autowarm_ask_to_leave(database);
	if (pid == 0)
		return;
	/* gone from the process array, not only from its slot: FORCE looks there */
	give_up = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), LEAVE_WAIT_MILLISECONDS);
	while (BackendPidGetProc(pid) != NULL && GetCurrentTimestamp() < give_up)
	{
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 20, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

static void
autowarm_utility(PlannedStmt *statement, const char *query, bool read_only_tree,
				 ProcessUtilityContext context, ParamListInfo params, QueryEnvironment *environment,
				 DestReceiver *destination, QueryCompletion *completion)
{
	if (autowarm_shared != NULL && IsA(statement->utilityStmt, DropdbStmt))
		send_worker_away(((DropdbStmt *) statement->utilityStmt)->dbname);
	if (previous_utility_hook)
		previous_utility_hook(statement, query, read_only_tree, context, params, environment,
							  destination, completion);
	else
		standard_ProcessUtility(statement, query, read_only_tree, context, params, environment,
								destination, completion);
}

void
autowarm_install_drop_database_hook(void)
{
	previous_utility_hook = ProcessUtility_hook;
	ProcessUtility_hook = autowarm_utility;
}
