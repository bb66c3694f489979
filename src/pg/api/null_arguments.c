/*
 * null_arguments.c — the NULL rule (null_arguments.h).
 */
#include "postgres.h"

#include "api/null_arguments.h"

bool
null_arguments_ask_nothing(FunctionCallInfo fcinfo, const char *function,
						   const ArgumentNullRule *rules, int count)
{
	bool		nothing = false;

	Assert(count == PG_NARGS());
	for (int argno = 0; argno < count; argno++)
	{
		if (!PG_ARGISNULL(argno))
			continue;
		switch (rules[argno].rule)
		{
			case NULL_IS_NOTHING:
				nothing = true;
				break;
			case NULL_IS_DEFAULT:
				break;
			case NULL_REFUSED:
				ereport(ERROR,
						(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
						 errmsg("%s of %s() must not be null", rules[argno].name, function),
						 errhint("Leave it out for its default.")));
				break;
			case NULL_REFUSED_ONE_FORK:
				ereport(ERROR,
						(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
						 errmsg("%s() works on one fork: %s must not be null", function, rules[argno].name),
						 errhint("Name the fork, e.g. %s => 'main' for the relation's data.",
								 rules[argno].name)));
				break;
		}
	}
	return nothing;
}
