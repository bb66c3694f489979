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

#endif							/* PG_CACHECTL_INTERNAL_ENTRY_H */
