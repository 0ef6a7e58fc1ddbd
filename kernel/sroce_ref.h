/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce_ref.h - the references a destroy verb waits for.
 *
 * A QP, an XRC SRQ, a user AH and an MR or MW key are found by number, an
 * implicit ODP MR's umem by address, from any context (a packet, a WQE)
 * while their destroy may run. Each counts its table entry and the lookups
 * in flight in a refcount_t; destroy erases the entry, puts the table's
 * reference and waits for 0 on the kernel's hashed wait queues
 * (wait_var_event()), so the objects carry no wait queue or completion of
 * their own.
 */
#ifndef SROCE_REF_H
#define SROCE_REF_H

#include <linux/refcount.h>
#include <linux/wait_bit.h>

/* Drop a reference; the last one wakes the destroy waiting for it. */
static inline void sroce_ref_put(refcount_t *ref)
{
	if (refcount_dec_and_test(ref)) {
		/*
		 * 0 before the check for waiters. wake_up_var() only hashes
		 * the address: the object may be freed as soon as 0 is seen.
		 */
		smp_mb__after_atomic();
		wake_up_var(ref);
	}
}

/*
 * Wait until every reference is put (the caller has put its own).
 * Process context (sleeps).
 */
static inline void sroce_ref_wait_zero(refcount_t *ref)
{
	wait_var_event(ref, !refcount_read(ref));
	/* Acquire: what the last holder wrote before its put is seen here. */
	smp_acquire__after_ctrl_dep();
}

#endif /* SROCE_REF_H */
