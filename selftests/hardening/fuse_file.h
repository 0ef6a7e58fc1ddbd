/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuse_file.h: a file of a FUSE daemon of the test itself, on /dev/fuse
 * directly (no libfuse): one regular file, "f", whose bytes are a
 * function of their offset. Enough for open, mmap and page faults, so
 * that a test controls when (and whether) a fault on the file is served:
 * SIGSTOP the daemon, or hold its READ replies back with the hooks.
 */
#ifndef SROCE_FUSE_FILE_H
#define SROCE_FUSE_FILE_H

#include <stdint.h>
#include <sys/types.h>

/* READ replies the daemon holds back at most; the rest are answered. */
#define FUSE_FILE_HELD	256

struct fuse_file {
	/* Set by the caller before fuse_file_start(). */
	const char *name;	/* file system name; mounted at /tmp/<name>.XXXXXX */
	uint64_t len;		/* bytes of the file */
	unsigned char (*byte)(uint64_t off);	/* the byte at @off */
	unsigned int max_readahead;	/* bytes; 0: a fault reads its page only */
	/* Optional hooks, called in the daemon's process with @ctx. */
	void *ctx;
	void (*daemon_start)(void *ctx);	/* before it serves anything */
	/* On each READ, before it is answered; @pid made it (the faulting task). */
	void (*on_read)(void *ctx, uint32_t pid, uint64_t off, uint32_t size);
	/*
	 * While it returns nonzero, READ replies wait (asked on each READ
	 * and every 5 ms while replies wait); they go once it returns 0.
	 */
	int (*hold)(void *ctx);

	/* Set by fuse_file_start(). */
	char dir[64];		/* the mount point */
	pid_t daemon;
	int fd;			/* the file, open read-only */
	unsigned char *map;	/* the file mapped privately, read-write */
};

/*
 * Mount the file system, start its daemon (a child that dies with the
 * calling thread), open the file and map all of it privately without
 * readahead (MADV_RANDOM). Skips the case without /dev/fuse.
 */
void fuse_file_start(struct fuse_file *f);
/* Unmap, close and unmount the file, kill the daemon. */
void fuse_file_stop(struct fuse_file *f);

#endif
