// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce_async: open an RDMA device and print its asynchronous events as they
 * arrive, for tests that provoke them from outside.
 *
 *   sroce_async -d <dev> [-n count] [-w EVENT] [-t timeout_ms]
 *
 * Prints "READY" once the context is open (the test may then act), one line
 * "EVENT <ibv_event_type_str()> port=<n>" per event, and exits 0 after
 * <count> events (default 1) or, with -w, once EVENT (that string, e.g.
 * "port error") has arrived;
 * exits 1 on timeout or error. Other events (a link change also changes
 * the GID table, for one) are printed and otherwise ignored under -w.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../datapath/dp.h"

int main(int argc, char **argv)
{
	const char *dev = NULL, *want = NULL;
	int count = 1, timeout_ms = 30000, got = 0, opt;
	struct ibv_context *ctx;
	struct pollfd pfd;

	while ((opt = getopt(argc, argv, "d:n:t:w:")) != -1) {
		switch (opt) {
		case 'd': dev = optarg; break;
		case 'w': want = optarg; break;
		case 'n': count = atoi(optarg); break;
		case 't': timeout_ms = atoi(optarg); break;
		default: goto usage;
		}
	}
	if (!dev)
		goto usage;
	ctx = dp_open_ctx(dev);
	if (!ctx) {
		fprintf(stderr, "cannot open %s: %s\n", dev, strerror(errno));
		return 1;
	}
	printf("READY\n");
	fflush(stdout);

	pfd.fd = ctx->async_fd;
	pfd.events = POLLIN;
	while (got < count) {
		struct ibv_async_event ev;
		int r = poll(&pfd, 1, timeout_ms);

		if (r <= 0) {
			fprintf(stderr, "timeout after %d event(s)\n", got);
			return 1;
		}
		if (ibv_get_async_event(ctx, &ev))
			return 1;
		printf("EVENT %s port=%d\n", ibv_event_type_str(ev.event_type),
		       ev.event_type == IBV_EVENT_PORT_ACTIVE ||
		       ev.event_type == IBV_EVENT_PORT_ERR ||
		       ev.event_type == IBV_EVENT_GID_CHANGE ?
		       ev.element.port_num : 0);
		fflush(stdout);
		ibv_ack_async_event(&ev);
		if (!want || !strcmp(want, ibv_event_type_str(ev.event_type)))
			got++;
	}
	ibv_close_device(ctx);
	return 0;
usage:
	fprintf(stderr, "usage: %s -d dev [-n count] [-w EVENT] [-t timeout_ms]\n", argv[0]);
	return 2;
}
