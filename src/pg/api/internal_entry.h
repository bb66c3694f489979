/*
 * internal_entry.h — the functions of schema cachectl_internal serve a
 * public entry point (snapshot() or restore(), which run with the caller's
 * privileges and so call them as the caller).  They are executable by
 * PUBLIC, and each checks here that the caller may execute the entry point
 * it serves: granting snapshot() or restore() is all a role needs, and a
 * role without that grant gets nothing from calling a helper directly.
 */
#ifndef PG_CACHECTL_INTERNAL_ENTRY_H
#define PG_CACHECTL_INTERNAL_ENTRY_H

typedef enum InternalEntryPoint
{
	INTERNAL_FOR_SNAPSHOT,		/* cachectl.snapshot(text, regclass[], boolean) */
	INTERNAL_FOR_RESTORE		/* CALL cachectl.restore(...) */
} InternalEntryPoint;

/* 42501 unless the user may execute the entry point; helper names the caller. */
extern void require_entry_point_privilege(InternalEntryPoint entry, const char *helper);

/*
 * The errors of a helper that checks what the user passed to snapshot() or
 * restore() are about that call: they reach the user with no CONTEXT lines
 * of the entry point's internal SQL.  Call at entry; put the returned stack
 * back before a normal return (an error's recovery resets it).
 */
static inline ErrorContextCallback *
internal_errors_to_user(void)
{
	ErrorContextCallback *caller_stack = error_context_stack;

	error_context_stack = NULL;
	return caller_stack;
}

#endif							/* PG_CACHECTL_INTERNAL_ENTRY_H */
