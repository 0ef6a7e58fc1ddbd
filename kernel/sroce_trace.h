/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce tracepoints (events/sroce/ in tracefs).
 *
 * sroce_odp_fault_start/end bracket the resolution of an on-demand paging
 * fault: an access to pages of an ODP MR that are not mapped (or not
 * writable) on the device side. The process-context owner of the QP's
 * engines that needs the pages (a doorbell caller, the work item, a
 * prefetch) resolves the fault itself, in line.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sroce

#if !defined(SROCE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define SROCE_TRACE_H

#include <linux/tracepoint.h>

TRACE_EVENT(sroce_odp_fault_start,
	TP_PROTO(const char *dev, u32 lkey, u64 va, u64 len, bool write,
		 u32 missing),
	TP_ARGS(dev, lkey, va, len, write, missing),
	TP_STRUCT__entry(
		__string(dev, dev)
		__field(u32, lkey)
		__field(u64, va)
		__field(u64, len)
		__field(bool, write)
		__field(u32, missing)
	),
	TP_fast_assign(
		__assign_str(dev);
		__entry->lkey = lkey;
		__entry->va = va;
		__entry->len = len;
		__entry->write = write;
		__entry->missing = missing;
	),
	TP_printk("%s lkey 0x%x va 0x%llx len %llu %s pages missing %u",
		  __get_str(dev), __entry->lkey, __entry->va, __entry->len,
		  __entry->write ? "write" : "read", __entry->missing)
);

TRACE_EVENT(sroce_odp_fault_end,
	TP_PROTO(const char *dev, u32 lkey, u64 va, u64 len, int ret),
	TP_ARGS(dev, lkey, va, len, ret),
	TP_STRUCT__entry(
		__string(dev, dev)
		__field(u32, lkey)
		__field(u64, va)
		__field(u64, len)
		__field(int, ret)
	),
	TP_fast_assign(
		__assign_str(dev);
		__entry->lkey = lkey;
		__entry->va = va;
		__entry->len = len;
		__entry->ret = ret;
	),
	TP_printk("%s lkey 0x%x va 0x%llx len %llu ret %d",
		  __get_str(dev), __entry->lkey, __entry->va, __entry->len,
		  __entry->ret)
);

#endif /* SROCE_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE sroce_trace
#include <trace/define_trace.h>
