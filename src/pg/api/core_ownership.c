/*
 * core_ownership.c — C++ core objects owned by a memory context.
 *
 * The core allocates with its own allocators, never palloc; tying each
 * object's release to a memory context's reset callback frees it whether the
 * call ends normally or by an error.  The callback is allocated before the
 * object is created: allocating it afterwards could fail (out of memory) with
 * the object already made and nothing yet to free it.
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "api/api.h"

MemoryContextCallback *
cachectl_reserve_free_callback(MemoryContext owner)
{
	return MemoryContextAllocZero(owner, sizeof(MemoryContextCallback));
}

void
cachectl_free_with_context(MemoryContext owner, MemoryContextCallback *callback,
						   void (*free_object) (void *), void *object)
{
	callback->func = free_object;
	callback->arg = object;
	MemoryContextRegisterResetCallback(owner, callback);
}
