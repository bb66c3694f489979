/*
 * plan_node_names.h — what EXPLAIN calls a plan node, and the relation and
 * index it reads, for cachectl.explain_reads()'s rows.
 */
#ifndef PG_CACHECTL_PLAN_NODE_NAMES_H
#define PG_CACHECTL_PLAN_NODE_NAMES_H

#include "nodes/plannodes.h"

/* EXPLAIN's "Node Type" (its JSON format's name), e.g. "Seq Scan". */
extern const char *plan_node_name(const Plan *plan);
/* The table a scan or a ModifyTable reads or writes, InvalidOid for none. */
extern Oid	plan_node_relation(const Plan *plan, const List *range_table);
/* The index an index scan reads, InvalidOid for none. */
extern Oid	plan_node_index(const Plan *plan);

#endif							/* PG_CACHECTL_PLAN_NODE_NAMES_H */
