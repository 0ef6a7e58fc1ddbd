// SPDX-License-Identifier: GPL-2.0-only
/* Helpers of the reliability tests: see rel.h. */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <time.h>
#include <unistd.h>
#include "rel.h"

#define DEBUGFS "/sys/kernel/debug/sroce"

void rel_sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CHECK(f, "open %s: %s (debugfs mounted? sroce built with it?)", path,
	      strerror(errno));
	CHECK(fputs(text, f) >= 0 && fclose(f) == 0, "write '%s' to %s: %s",
	      text, path, strerror(errno));
}

void rel_fault(const struct dp_end *e, const char *dir, const char *fmt, ...)
{
	char path[256], rule[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rule, sizeof(rule), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), DEBUGFS "/%s/%s_drop", e->dev->name, dir);
	write_file(path, rule);
}

void rel_fault_off(const struct dp_end *e)
{
	rel_fault(e, "tx", "off");
	rel_fault(e, "rx", "off");
}

void rel_ctrs_take(struct rel_ctrs *c, const struct dp_end *e)
{
	char dir[256], path[512];
	struct dirent *de;
	DIR *d;

	/* The core caches hw counters for 10 ms: read a fresh set. */
	rel_sleep_ms(20);
	memset(c, 0, sizeof(*c));
	c->dev = e->dev->name;
	snprintf(dir, sizeof(dir), "/sys/class/infiniband/%s/ports/1/hw_counters",
		 c->dev);
	d = opendir(dir);
	CHECK(d, "opendir %s: %s", dir, strerror(errno));
	while ((de = readdir(d)) && c->n < REL_MAX_CTRS) {
		FILE *f;

		if (de->d_name[0] == '.' || !strcmp(de->d_name, "lifespan") ||
		    strlen(de->d_name) >= sizeof(c->name[0]))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%llu", &c->v[c->n]) == 1) {
			memcpy(c->name[c->n], de->d_name, strlen(de->d_name) + 1);
			c->n++;
		}
		fclose(f);
	}
	closedir(d);
	CHECK(c->n > 0, "no counters in %s", dir);
}

unsigned long long rel_delta(const struct rel_ctrs *c, const char *name)
{
	struct dp_end e;
	struct dp_dev d;
	struct rel_ctrs now;
	int i;

	d.name = c->dev;
	e.dev = &d;
	rel_ctrs_take(&now, &e);
	for (i = 0; i < c->n; i++)
		if (!strcmp(c->name[i], name))
			break;
	CHECK(i < c->n && !strcmp(now.name[i], name), "%s: no counter %s",
	      c->dev, name);
	return now.v[i] - c->v[i];
}

void rel_ctrs_note(const struct rel_ctrs *c)
{
	struct dp_end e;
	struct dp_dev d;
	struct rel_ctrs now;
	int i;

	d.name = c->dev;
	e.dev = &d;
	rel_ctrs_take(&now, &e);
	for (i = 0; i < c->n && i < now.n; i++)
		if (now.v[i] != c->v[i] && strncmp(c->name[i], "tx_", 3) &&
		    strncmp(c->name[i], "rx_", 3))
			NOTE("%s %s +%llu", c->dev, c->name[i], now.v[i] - c->v[i]);
}

void rel_netem(char end, const char *args)
{
	char cmd[512];
	int rc;

	if (args)
		snprintf(cmd, sizeof(cmd),
			 "ip netns exec sroce_%c tc qdisc replace dev veth_%c root netem %s",
			 end, end, args);
	else
		snprintf(cmd, sizeof(cmd),
			 "ip netns exec sroce_%c tc qdisc del dev veth_%c root 2>/dev/null",
			 end, end);
	rc = system(cmd);
	CHECK(!args || rc == 0, "'%s' failed (%d): is sch_netem available?", cmd, rc);
}

void rel_send_msg(struct dp_pair *p, size_t len, uint32_t seed)
{
	struct dp_sgl s, r;
	struct ibv_wc wc;

	dp_sgl_make(&s, &p->a.buf, 0, len, 1, 0);
	dp_sgl_fill(&s, seed);
	dp_sgl_make(&r, &p->b.buf, 0, len, 1, 0);
	dp_sgl_clear(&r, 0x5a);
	dp_post_recv(&p->b, seed, r.sge, r.n);
	dp_send_wr(p, IBV_WR_SEND, seed, &s, IBV_SEND_SIGNALED, 0, 0, 0);
	dp_poll(p->a.scq, &wc, DP_TIMEOUT_MS, "SEND completion");
	dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_SEND, seed, p->a.qp->qp_num, "SEND");
	dp_poll(p->b.rcq, &wc, DP_TIMEOUT_MS, "receive completion");
	dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RECV, seed, p->b.qp->qp_num, "RECV");
	CHECK_EQ(wc.byte_len, len, "receive byte_len");
	dp_sgl_check(&r, seed, 0x5a, "received message");
	dp_expect_none(p->b.rcq, 100, "a second receive completion");
}

FILE *rel_flood_a(const struct dp_pair *p, uint32_t psn, unsigned int secs,
		  const char *args)
{
	const char *pkt = getenv("ROCE_PKT"), *ns = getenv("NS_B");
	const unsigned char *ip = p->a.dev->ip;
	char cmd[1024], line[128];
	FILE *f;

	if (!pkt || !ns)
		dp_skip("packet injection needs ROCE_PKT and NS_B (sroce target)");
	CHECK(p->a.dev->family == 4, "injection is over IPv4");
	/* The ping resolves the neighbour: a raw packet may wait for ARP. */
	snprintf(cmd, sizeof(cmd),
		 "ip netns exec %s ping -q -c 1 -W 5 %u.%u.%u.%u >/dev/null && "
		 "ip netns exec %s python3 %s req %u.%u.%u.%u --qpn 0x%x --psn 0x%x "
		 "--secs %u %s", ns, ip[0], ip[1], ip[2], ip[3], ns, pkt, ip[0],
		 ip[1], ip[2], ip[3], p->a.qp->qp_num, psn, secs, args);
	NOTE("%s", cmd);
	f = popen(cmd, "r");
	CHECK(f, "popen: %s", strerror(errno));
	CHECK(fgets(line, sizeof(line), f) && !strncmp(line, "flooding", 8),
	      "roce_pkt.py did not start flooding");
	return f;
}

unsigned long rel_flood_end(FILE *f)
{
	unsigned long n = 0;
	char line[128];

	while (fgets(line, sizeof(line), f))
		sscanf(line, "sent %lu", &n);
	CHECK(pclose(f) == 0, "roce_pkt.py failed");
	return n;
}
