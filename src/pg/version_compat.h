/*
 * version_compat.h — the buffer-manager and relation-file names that changed
 * between PostgreSQL 15 and 18, behind one set of macros.
 *
 * Built and tested on 15; the 16-18 branches follow those versions' headers
 * (RelFileNode became RelFileLocator in 16, tag macros became inline
 * functions in 16, relpath*() returns a struct in 18).  19 changes the
 * buffer header itself and is refused until it is released and studied.
 */
#ifndef PG_CACHECTL_VERSION_COMPAT_H
#define PG_CACHECTL_VERSION_COMPAT_H

#include "common/relpath.h"
#include "storage/buf_internals.h"
#include "utils/rel.h"
#include "utils/relmapper.h"

#if PG_VERSION_NUM >= 190000
#error "pg_cachectl supports PostgreSQL 15 to 18: 19 changes the buffer header"
#endif

#if PG_VERSION_NUM >= 160000

#define CACHECTL_TAG_TABLESPACE(tag)	((tag).spcOid)
#define CACHECTL_TAG_DATABASE(tag)		((tag).dbOid)
#define CACHECTL_TAG_FILE_NUMBER(tag)	((tag).relNumber)
#define CACHECTL_TAG_FORK(tag)			((tag).forkNum)
#define CACHECTL_TAGS_EQUAL(a, b)		BufferTagsEqual(&(a), &(b))
#define CACHECTL_CLEAR_TAG(tag)			ClearBufferTag(&(tag))
#define CACHECTL_READ_RECENT_BUFFER(tag, buffer) \
	ReadRecentBuffer(BufTagGetRelFileLocator(&(tag)), (tag).forkNum, (tag).blockNum, (buffer))

#define CACHECTL_REL_TABLESPACE(rel)	((rel)->rd_locator.spcOid)
#define CACHECTL_REL_DATABASE(rel)		((rel)->rd_locator.dbOid)
#define CACHECTL_REL_FILE_NUMBER(rel)	((rel)->rd_locator.relNumber)

#else							/* 15 */

#define CACHECTL_TAG_TABLESPACE(tag)	((tag).rnode.spcNode)
#define CACHECTL_TAG_DATABASE(tag)		((tag).rnode.dbNode)
#define CACHECTL_TAG_FILE_NUMBER(tag)	((tag).rnode.relNode)
#define CACHECTL_TAG_FORK(tag)			((tag).forkNum)
#define CACHECTL_TAGS_EQUAL(a, b)		BUFFERTAGS_EQUAL((a), (b))
#define CACHECTL_CLEAR_TAG(tag)			CLEAR_BUFFERTAG(tag)
#define CACHECTL_READ_RECENT_BUFFER(tag, buffer) \
	ReadRecentBuffer((tag).rnode, (tag).forkNum, (tag).blockNum, (buffer))

#define CACHECTL_REL_TABLESPACE(rel)	((rel)->rd_node.spcNode)
#define CACHECTL_REL_DATABASE(rel)		((rel)->rd_node.dbNode)
#define CACHECTL_REL_FILE_NUMBER(rel)	((rel)->rd_node.relNode)

#endif

/*
 * The path of a permanent relation's fork from its file key, palloc'd, and
 * the relfilenode of a mapped catalog (whose pg_class.relfilenode is 0).
 */
#if PG_VERSION_NUM >= 180000
#define CACHECTL_KEY_FORK_PATH(tablespace, database, file_number, fork) \
	pstrdup(relpathperm(((RelFileLocator) {(tablespace), (database), (file_number)}), (fork)).str)
#elif PG_VERSION_NUM >= 160000
#define CACHECTL_KEY_FORK_PATH(tablespace, database, file_number, fork) \
	relpathperm(((RelFileLocator) {(tablespace), (database), (file_number)}), (fork))
#else
#define CACHECTL_KEY_FORK_PATH(tablespace, database, file_number, fork) \
	relpathperm(((RelFileNode) {(tablespace), (database), (file_number)}), (fork))
#endif

#if PG_VERSION_NUM >= 160000
#define CACHECTL_MAPPED_FILE_NUMBER(relid) RelationMapOidToFilenumber((relid), false)
#else
#define CACHECTL_MAPPED_FILE_NUMBER(relid) RelationMapOidToFilenode((relid), false)
#endif

/* A fork's path relative to the data directory, palloc'd. */
#if PG_VERSION_NUM >= 180000
#define CACHECTL_RELATION_FORK_PATH(rel, fork) \
	pstrdup(relpathbackend((rel)->rd_locator, (rel)->rd_backend, (fork)).str)
#elif PG_VERSION_NUM >= 160000
#define CACHECTL_RELATION_FORK_PATH(rel, fork) \
	relpathbackend((rel)->rd_locator, (rel)->rd_backend, (fork))
#else
#define CACHECTL_RELATION_FORK_PATH(rel, fork) \
	relpathbackend((rel)->rd_node, (rel)->rd_backend, (fork))
#endif

#endif							/* PG_CACHECTL_VERSION_COMPAT_H */
