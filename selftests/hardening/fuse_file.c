// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuse_file.c: the FUSE file of the hardening tests (see fuse_file.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "../datapath/dp.h"
#include "fuse_file.h"

#define FF_IO		(128 * KiB)	/* a READ's reply at most */

static void ff_reply(int fd, uint64_t unique, int error, const void *p,
		     size_t len)
{
	static unsigned char buf[sizeof(struct fuse_out_header) + FF_IO];
	struct fuse_out_header *oh = (void *)buf;

	oh->len = sizeof(*oh) + len;
	oh->error = error;
	oh->unique = unique;
	if (len)
		memcpy(buf + sizeof(*oh), p, len);
	if (write(fd, buf, oh->len) < 0 && errno != ENOENT)
		_exit(3);
}

static void ff_attr(const struct fuse_file *f, struct fuse_attr *a,
		    uint64_t ino)
{
	memset(a, 0, sizeof(*a));
	a->ino = ino;
	a->nlink = 1;
	a->blksize = 4096;
	if (ino == FUSE_ROOT_ID) {
		a->mode = S_IFDIR | 0755;
	} else {
		a->mode = S_IFREG | 0644;
		a->size = f->len;
		a->blocks = f->len / 512;
	}
}

static void ff_read_reply(const struct fuse_file *f, int fd, uint64_t unique,
			  uint64_t off, uint64_t len)
{
	static unsigned char data[FF_IO];
	uint64_t i;

	if (off >= f->len)
		len = 0;
	else if (len > f->len - off)
		len = f->len - off;
	if (len > sizeof(data))
		len = sizeof(data);
	for (i = 0; i < len; i++)
		data[i] = f->byte(off + i);
	ff_reply(fd, unique, 0, data, len);
}

/* The daemon: serves @fd until the file system goes. */
static void ff_serve(const struct fuse_file *f, int fd)
{
	static unsigned char in[FUSE_MIN_READ_BUFFER + FF_IO];
	static struct { uint64_t unique, off, len; } held[FUSE_FILE_HELD];
	unsigned int nheld = 0, i;

	for (;;) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		struct fuse_in_header *ih = (void *)in;
		void *arg = in + sizeof(*ih);
		ssize_t n;

		if (nheld && !f->hold(f->ctx)) {
			for (i = 0; i < nheld; i++)
				ff_read_reply(f, fd, held[i].unique, held[i].off,
					      held[i].len);
			nheld = 0;
		}
		/* With held replies possible, look at hold every 5 ms. */
		n = poll(&pf, 1, f->hold ? 5 : -1);
		if (n <= 0)
			continue;
		if (pf.revents & (POLLERR | POLLHUP | POLLNVAL))
			_exit(0);
		n = read(fd, in, sizeof(in));
		if (n < 0 && (errno == EINTR || errno == ENOENT || errno == EAGAIN))
			continue;
		if (n < (ssize_t)sizeof(*ih))
			_exit(0);	/* unmounted (ENODEV) */
		switch (ih->opcode) {
		case FUSE_INIT: {
			struct fuse_init_out o = {
				.major = FUSE_KERNEL_VERSION,
				.minor = FUSE_KERNEL_MINOR_VERSION,
				.max_readahead = f->max_readahead,
				.max_background = 16,
				.congestion_threshold = 12, .max_write = FF_IO,
				.time_gran = 1, .max_pages = FF_IO / 4096,
			};

			ff_reply(fd, ih->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_LOOKUP: {
			struct fuse_entry_out o = { 0 };

			if (ih->nodeid != FUSE_ROOT_ID || strcmp(arg, "f")) {
				ff_reply(fd, ih->unique, -ENOENT, NULL, 0);
				break;
			}
			o.nodeid = 2;
			o.entry_valid = 3600;
			o.attr_valid = 3600;
			ff_attr(f, &o.attr, 2);
			ff_reply(fd, ih->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_GETATTR: {
			struct fuse_attr_out o = { .attr_valid = 3600 };

			ff_attr(f, &o.attr, ih->nodeid);
			ff_reply(fd, ih->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_OPEN: {
			struct fuse_open_out o = { .fh = 1 };

			ff_reply(fd, ih->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_READ: {
			struct fuse_read_in *r = arg;

			if (f->on_read)
				f->on_read(f->ctx, ih->pid, r->offset, r->size);
			if (f->hold && nheld < FUSE_FILE_HELD && f->hold(f->ctx)) {
				held[nheld].unique = ih->unique;
				held[nheld].off = r->offset;
				held[nheld].len = r->size;
				nheld++;
				break;
			}
			ff_read_reply(f, fd, ih->unique, r->offset, r->size);
			break;
		}
		case FUSE_FLUSH:
		case FUSE_RELEASE:
			ff_reply(fd, ih->unique, 0, NULL, 0);
			break;
		case FUSE_FORGET:
		case FUSE_BATCH_FORGET:
		case FUSE_INTERRUPT:
			break;		/* no reply */
		case FUSE_DESTROY:
			ff_reply(fd, ih->unique, 0, NULL, 0);
			_exit(0);
		default:
			ff_reply(fd, ih->unique, -ENOSYS, NULL, 0);
			break;
		}
	}
}

void fuse_file_start(struct fuse_file *f)
{
	char opts[128], path[sizeof(f->dir) + 4];
	pid_t ppid = getpid();
	int ffd;

	snprintf(f->dir, sizeof(f->dir), "/tmp/%s.XXXXXX", f->name);
	CHECK(mkdtemp(f->dir), "mkdtemp: %s", strerror(errno));
	ffd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (ffd < 0 && (errno == ENOENT || errno == ENODEV)) {
		rmdir(f->dir);
		dp_skip("no /dev/fuse");
	}
	CHECK(ffd >= 0, "/dev/fuse: %s", strerror(errno));
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0",
		 ffd);
	CHECK(!mount(f->name, f->dir, "fuse", MS_NOSUID | MS_NODEV, opts),
	      "mount fuse: %s", strerror(errno));
	fflush(stdout);
	f->daemon = fork();
	CHECK(f->daemon >= 0, "fork: %s", strerror(errno));
	if (!f->daemon) {
		/* A daemon left behind would hold the mount. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != ppid)
			_exit(1);
		if (f->daemon_start)
			f->daemon_start(f->ctx);
		ff_serve(f, ffd);
	}
	close(ffd);
	snprintf(path, sizeof(path), "%s/f", f->dir);
	f->fd = open(path, O_RDONLY);
	CHECK(f->fd >= 0, "open %s: %s", path, strerror(errno));
	f->map = mmap(NULL, f->len, PROT_READ | PROT_WRITE, MAP_PRIVATE, f->fd, 0);
	CHECK(f->map != MAP_FAILED, "mmap the FUSE file: %s", strerror(errno));
	madvise(f->map, f->len, MADV_RANDOM);	/* no readahead */
}

void fuse_file_stop(struct fuse_file *f)
{
	munmap(f->map, f->len);
	close(f->fd);
	umount2(f->dir, MNT_DETACH);
	kill(f->daemon, SIGKILL);
	waitpid(f->daemon, NULL, 0);
	rmdir(f->dir);
}
