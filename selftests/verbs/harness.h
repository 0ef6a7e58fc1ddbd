/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A small kselftest_harness.h-like harness for sroce's verbs tests.
 *
 *   #include "harness.h"
 *   TEST(cq_create_bounds) {          // seed rule id in a comment
 *           struct hctx c;
 *           HCTX_SETUP(&c);           // opens -d/SROCE_DEV, allocates a PD
 *           ASSERT_NULL_ERRNO(ibv_create_cq(c.ctx, 0, NULL, NULL, 0), EINVAL);
 *   }
 *   HARNESS_MAIN
 *
 * Each TEST runs in its own child process (a crash or a seccomp filter
 * stays there) with a timeout, and prints KTAP:
 *   TAP version 13 / 1..N / ok|not ok N name [# SKIP reason] / # Totals
 * Exit status: 0 all passed (skips allowed), 1 any failure, 4 all skipped.
 * Usage: prog [-d device] [-t seconds] [name-filter]; the device also comes
 * from $SROCE_DEV.
 */
#ifndef SROCE_HARNESS_H
#define SROCE_HARNESS_H

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <infiniband/verbs.h>

#define KSFT_PASS 0
#define KSFT_FAIL 1
#define KSFT_SKIP 4

struct harness_test {
	const char *name;
	void (*fn)(void);
	struct harness_test *next;
};

static struct harness_test *harness_tests, **harness_tail = &harness_tests;
static const char *harness_dev;

static inline void harness_register(struct harness_test *t)
{
	*harness_tail = t;
	harness_tail = &t->next;
}

#define TEST(name)							\
	static void test_##name(void);					\
	static struct harness_test harness_t_##name = {			\
		#name, test_##name, NULL };				\
	__attribute__((constructor)) static void harness_reg_##name(void) \
	{ harness_register(&harness_t_##name); }			\
	static void test_##name(void)

/* Failure and skip end the test's child process. */
#define TH_FAIL(...) do {						\
	printf("# %s:%d: ", __FILE__, __LINE__);			\
	printf(__VA_ARGS__);						\
	printf("\n");							\
	fflush(stdout);							\
	_exit(KSFT_FAIL);						\
} while (0)

#define SKIP(...) do {							\
	printf("# SKIP ");						\
	printf(__VA_ARGS__);						\
	printf("\n");							\
	fflush(stdout);							\
	_exit(KSFT_SKIP);						\
} while (0)

#define TH_INFO(...) do { printf("# "); printf(__VA_ARGS__); printf("\n"); } while (0)

#define ASSERT_TRUE(c) do { if (!(c)) TH_FAIL("expected %s", #c); } while (0)
#define ASSERT_FALSE(c) do { if (c) TH_FAIL("expected !(%s)", #c); } while (0)
#define ASSERT_EQ(a, b) do {						\
	long long _a = (long long)(a), _b = (long long)(b);		\
	if (_a != _b)							\
		TH_FAIL("%s == %lld, expected %s == %lld", #a, _a, #b, _b); \
} while (0)
#define ASSERT_NE(a, b) do {						\
	long long _a = (long long)(a), _b = (long long)(b);		\
	if (_a == _b)							\
		TH_FAIL("%s == %s == %lld", #a, #b, _a);		\
} while (0)
#define ASSERT_GE(a, b) do {						\
	long long _a = (long long)(a), _b = (long long)(b);		\
	if (_a < _b)							\
		TH_FAIL("%s == %lld < %s == %lld", #a, _a, #b, _b);	\
} while (0)
/* A verb returning 0 or an errno value (ibv_modify_srq, ibv_dereg_mr...). */
#define ASSERT_OK(e) do {						\
	int _r = (e);							\
	if (_r)								\
		TH_FAIL("%s failed: %d (%s)", #e, _r, strerror(_r < 0 ? -_r : _r)); \
} while (0)
#define ASSERT_RET(e, want) do {					\
	int _r = (e);							\
	if (_r != (want))						\
		TH_FAIL("%s returned %d (%s), expected %s (%d)", #e, _r,	\
			strerror(_r < 0 ? -_r : _r), #want, (int)(want)); \
} while (0)
/* A constructor returning NULL and setting errno. */
#define ASSERT_PTR(p) ({						\
	__typeof__(p) _p = (p);						\
	if (!_p)							\
		TH_FAIL("%s failed: errno %d (%s)", #p, errno, strerror(errno)); \
	_p;								\
})
#define ASSERT_NULL_ERRNO(p, want) do {					\
	void *_p;							\
	errno = 0;							\
	_p = (void *)(p);						\
	if (_p)								\
		TH_FAIL("%s succeeded, expected errno %s", #p, #want);	\
	if (errno != (want))						\
		TH_FAIL("%s: errno %d (%s), expected %s (%d)", #p, errno, \
			strerror(errno), #want, (int)(want));		\
} while (0)

/* The fixture most tests start from: a context and a PD on the device. */
struct hctx {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_device_attr_ex attr;
};

static inline struct ibv_context *harness_open(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	if (!list)
		return NULL;
	for (i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	return ctx;
}

#define HCTX_SETUP(c) do {						\
	memset((c), 0, sizeof(*(c)));					\
	(c)->ctx = harness_open(harness_dev);				\
	if (!(c)->ctx)							\
		TH_FAIL("cannot open device %s", harness_dev);		\
	(c)->pd = ASSERT_PTR(ibv_alloc_pd((c)->ctx));			\
	ASSERT_OK(ibv_query_device_ex((c)->ctx, NULL, &(c)->attr));	\
} while (0)

static inline void hctx_teardown(struct hctx *c)
{
	if (c->pd && ibv_dealloc_pd(c->pd))
		TH_FAIL("ibv_dealloc_pd failed");
	if (c->ctx && ibv_close_device(c->ctx))
		TH_FAIL("ibv_close_device failed");
}

/*
 * From here on, every read, write or ioctl on @fd (a context's cmd_fd)
 * fails with EPERM: a data-path verb that still works made no system call
 * into uverbs. Irreversible: use it inside a TEST (its own process).
 */
static inline void harness_forbid_fd_syscalls(int fd)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_ioctl, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_write, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_read, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		/* args[0], low 32 bits (x86-64 is little endian) */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned int)fd, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
		SKIP("seccomp unavailable: %s", strerror(errno));
}

static inline int harness_run(int argc, char **argv)
{
	int opt, n = 0, total = 0, pass = 0, fail = 0, skip = 0, tmo = 120;
	const char *filter = NULL;
	struct harness_test *t;

	harness_dev = getenv("SROCE_DEV");
	while ((opt = getopt(argc, argv, "d:t:")) != -1) {
		switch (opt) {
		case 'd': harness_dev = optarg; break;
		case 't': tmo = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: %s [-d dev] [-t secs] [filter]\n", argv[0]);
			return KSFT_FAIL;
		}
	}
	if (optind < argc)
		filter = argv[optind];
	for (t = harness_tests; t; t = t->next)
		total += !filter || strstr(t->name, filter);
	printf("TAP version 13\n1..%d\n", total);
	if (!harness_dev) {
		printf("# no device: use -d or SROCE_DEV\n");
		return KSFT_FAIL;
	}
	for (t = harness_tests; t; t = t->next) {
		int status;
		pid_t pid;

		if (filter && !strstr(t->name, filter))
			continue;
		n++;
		fflush(stdout);
		pid = fork();
		if (pid < 0) {
			printf("not ok %d %s # fork failed\n", n, t->name);
			fail++;
			continue;
		}
		if (!pid) {
			alarm(tmo);
			t->fn();
			fflush(stdout);
			_exit(KSFT_PASS);
		}
		waitpid(pid, &status, 0);
		if (WIFEXITED(status) && WEXITSTATUS(status) == KSFT_PASS) {
			printf("ok %d %s\n", n, t->name);
			pass++;
		} else if (WIFEXITED(status) && WEXITSTATUS(status) == KSFT_SKIP) {
			printf("ok %d %s # SKIP\n", n, t->name);
			skip++;
		} else {
			if (WIFSIGNALED(status))
				printf("# killed by signal %d%s\n", WTERMSIG(status),
				       WTERMSIG(status) == SIGALRM ? " (timeout)" : "");
			printf("not ok %d %s\n", n, t->name);
			fail++;
		}
	}
	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:%d error:0\n",
	       pass, fail, skip);
	if (fail)
		return KSFT_FAIL;
	return n && skip == n ? KSFT_SKIP : KSFT_PASS;
}

#define HARNESS_MAIN							\
	int main(int argc, char **argv)					\
	{								\
		setvbuf(stdout, NULL, _IOLBF, 0);			\
		return harness_run(argc, argv);				\
	}

#endif /* SROCE_HARNESS_H */
