// SPDX-License-Identifier: GPL-2.0-only
/*
 * obj_scale: the cost of many verbs objects on one RDMA device, for
 * scripts/bench. Creates N RC QPs (one PD, one shared CQ, one-entry queues),
 * then N MRs (one 4 KiB page each), then destroys them, timing each phase
 * and reading the kernel's Slab and VmallocUsed from /proc/meminfo between
 * phases. Prints one "key value" line per figure.
 *
 *   obj_scale DEVICE N
 */
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A /proc/meminfo field in KiB, or -1. */
static long meminfo_kib(const char *key)
{
	char line[256];
	size_t n = strlen(key);
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':') {
			v = strtol(line + n + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct mem {
	long slab, vmalloc;
};

static struct mem mem_now(void)
{
	struct mem m = { meminfo_kib("Slab"), meminfo_kib("VmallocUsed") };

	return m;
}

static void report(const char *what, int n, double t0, struct mem m0)
{
	struct mem m1 = mem_now();
	double dt = now_s() - t0;

	printf("%s_s %.4f\n", what, dt);
	printf("%s_us_each %.2f\n", what, dt * 1e6 / n);
	printf("%s_slab_kib %ld\n", what, m1.slab - m0.slab);
	printf("%s_vmalloc_kib %ld\n", what, m1.vmalloc - m0.vmalloc);
}

int main(int argc, char **argv)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp **qps;
	struct ibv_mr **mrs;
	struct mem m0;
	long page = sysconf(_SC_PAGESIZE);
	char *buf;
	double t0;
	int i, n, ndev;

	if (argc != 3 || (n = atoi(argv[2])) <= 0) {
		fprintf(stderr, "usage: %s DEVICE N\n", argv[0]);
		return 2;
	}
	setlinebuf(stdout);
	list = ibv_get_device_list(&ndev);
	for (i = 0; list && i < ndev; i++)
		if (!strcmp(ibv_get_device_name(list[i]), argv[1]))
			ctx = ibv_open_device(list[i]);
	if (!ctx) {
		fprintf(stderr, "cannot open %s\n", argv[1]);
		return 1;
	}
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 16, NULL, NULL, 0) : NULL;
	qps = calloc(n, sizeof(*qps));
	mrs = calloc(n, sizeof(*mrs));
	buf = aligned_alloc(page, (size_t)n * page);
	if (!cq || !qps || !mrs || !buf) {
		fprintf(stderr, "setup failed\n");
		return 1;
	}
	memset(buf, 0, (size_t)n * page);

	m0 = mem_now();
	t0 = now_s();
	for (i = 0; i < n; i++) {
		struct ibv_qp_init_attr a = {
			.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
			.cap = { .max_send_wr = 1, .max_recv_wr = 1,
				 .max_send_sge = 1, .max_recv_sge = 1 },
		};

		qps[i] = ibv_create_qp(pd, &a);
		if (!qps[i]) {
			fprintf(stderr, "create_qp %d failed: %m\n", i);
			return 1;
		}
	}
	report("qp_create", n, t0, m0);

	m0 = mem_now();
	t0 = now_s();
	for (i = 0; i < n; i++) {
		mrs[i] = ibv_reg_mr(pd, buf + (size_t)i * page, page,
				    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ);
		if (!mrs[i]) {
			fprintf(stderr, "reg_mr %d failed: %m\n", i);
			return 1;
		}
	}
	report("mr_reg", n, t0, m0);

	m0 = mem_now();
	t0 = now_s();
	for (i = 0; i < n; i++)
		if (ibv_dereg_mr(mrs[i])) {
			fprintf(stderr, "dereg_mr %d failed\n", i);
			return 1;
		}
	report("mr_dereg", n, t0, m0);

	m0 = mem_now();
	t0 = now_s();
	for (i = 0; i < n; i++)
		if (ibv_destroy_qp(qps[i])) {
			fprintf(stderr, "destroy_qp %d failed\n", i);
			return 1;
		}
	report("qp_destroy", n, t0, m0);

	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	free(buf);
	free(mrs);
	free(qps);
	return 0;
}
