// SPDX-License-Identifier: GPL-2.0-only
/*
 * The one instance of sroce's tracepoints (sroce_trace.h): every other file
 * includes the header without CREATE_TRACE_POINTS.
 */
#define CREATE_TRACE_POINTS
#include "sroce_trace.h"
