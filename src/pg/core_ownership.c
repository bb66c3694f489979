/*
 * core_ownership.c — C++ core objects owned by a memory context.
 *
 * The core allocates with its own allocators, never palloc; tying each
 * object's release to a memory context's reset callback frees it whether the
 * call ends normally or by an error.
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "cachectl.h"

void
cachectl_free_with_context(MemoryContext owner, void (*free_object) (void *), void *object)
{
	MemoryContextCallback *callback = MemoryContextAlloc(owner, sizeof(MemoryContextCallback));

	callback->func = free_object;
	callback->arg = object;
	MemoryContextRegisterResetCallback(owner, callback);
}
