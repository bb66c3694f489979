/*
 * plan_node_names.c — EXPLAIN's names of plan nodes, written out here
 * because core keeps its own table private to explain.c.
 */
#include "postgres.h"

#include "parser/parsetree.h"

#include "reads/plan_node_names.h"

const char *
plan_node_name(const Plan *plan)
{
	switch (nodeTag(plan))
	{
		case T_Result:
			return "Result";
		case T_ProjectSet:
			return "ProjectSet";
		case T_ModifyTable:
			switch (((const ModifyTable *) plan)->operation)
			{
				case CMD_INSERT:
					return "Insert";
				case CMD_UPDATE:
					return "Update";
				case CMD_DELETE:
					return "Delete";
				case CMD_MERGE:
					return "Merge";
				default:
					return "ModifyTable";
			}
		case T_Append:
			return "Append";
		case T_MergeAppend:
			return "Merge Append";
		case T_RecursiveUnion:
			return "Recursive Union";
		case T_BitmapAnd:
			return "BitmapAnd";
		case T_BitmapOr:
			return "BitmapOr";
		case T_NestLoop:
			return "Nested Loop";
		case T_MergeJoin:
			return "Merge Join";
		case T_HashJoin:
			return "Hash Join";
		case T_SeqScan:
			return "Seq Scan";
		case T_SampleScan:
			return "Sample Scan";
		case T_Gather:
			return "Gather";
		case T_GatherMerge:
			return "Gather Merge";
		case T_IndexScan:
			return "Index Scan";
		case T_IndexOnlyScan:
			return "Index Only Scan";
		case T_BitmapIndexScan:
			return "Bitmap Index Scan";
		case T_BitmapHeapScan:
			return "Bitmap Heap Scan";
		case T_TidScan:
			return "Tid Scan";
		case T_TidRangeScan:
			return "Tid Range Scan";
		case T_SubqueryScan:
			return "Subquery Scan";
		case T_FunctionScan:
			return "Function Scan";
		case T_TableFuncScan:
			return "Table Function Scan";
		case T_ValuesScan:
			return "Values Scan";
		case T_CteScan:
			return "CTE Scan";
		case T_NamedTuplestoreScan:
			return "Named Tuplestore Scan";
		case T_WorkTableScan:
			return "WorkTable Scan";
		case T_ForeignScan:
			return "Foreign Scan";
		case T_CustomScan:
			return "Custom Scan";
		case T_Material:
			return "Materialize";
		case T_Memoize:
			return "Memoize";
		case T_Sort:
			return "Sort";
		case T_IncrementalSort:
			return "Incremental Sort";
		case T_Group:
			return "Group";
		case T_Agg:
			return "Aggregate";
		case T_WindowAgg:
			return "WindowAgg";
		case T_Unique:
			return "Unique";
		case T_SetOp:
			return "SetOp";
		case T_LockRows:
			return "LockRows";
		case T_Limit:
			return "Limit";
		case T_Hash:
			return "Hash";
		default:
			return "Unknown";
	}
}

Oid
plan_node_relation(const Plan *plan, const List *range_table)
{
	Index		rt_index = 0;
	RangeTblEntry *entry;

	switch (nodeTag(plan))
	{
		case T_SeqScan:
		case T_SampleScan:
		case T_IndexScan:
		case T_IndexOnlyScan:
		case T_BitmapHeapScan:
		case T_TidScan:
		case T_TidRangeScan:
		case T_ForeignScan:
		case T_CustomScan:
			rt_index = ((const Scan *) plan)->scanrelid;
			break;
		case T_ModifyTable:
			rt_index = ((const ModifyTable *) plan)->nominalRelation;
			break;
		default:
			return InvalidOid;
	}
	if (rt_index == 0 || rt_index > (Index) list_length(range_table))
		return InvalidOid;
	entry = rt_fetch(rt_index, range_table);
	return entry->rtekind == RTE_RELATION ? entry->relid : InvalidOid;
}

Oid
plan_node_index(const Plan *plan)
{
	switch (nodeTag(plan))
	{
		case T_IndexScan:
			return ((const IndexScan *) plan)->indexid;
		case T_IndexOnlyScan:
			return ((const IndexOnlyScan *) plan)->indexid;
		case T_BitmapIndexScan:
			return ((const BitmapIndexScan *) plan)->indexid;
		default:
			return InvalidOid;
	}
}
