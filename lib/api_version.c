/* SPDX-License-Identifier: BSD-3-Clause */
/* api_version.c - the interface version this library implements */
#include <numaplan/api.h>

unsigned np_get_api_version(void)
{
	return NUMAPLAN_API_VERSION;
}
