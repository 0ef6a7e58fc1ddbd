// SPDX-License-Identifier: GPL-2.0-only
/*
 * wake_ping: what waking a sleeping thread costs in this guest, for
 * scripts/bench. Two threads pass a byte back and forth over two pipes,
 * each blocking in read() until the other writes, ROUNDS round trips:
 *   - "cross": one thread pinned to CPU 0, the other to CPU 1. Every
 *     wake-up is another CPU's, the way a hand-off of work to the idle
 *     vCPU is (an IPI to a halted vCPU under QEMU);
 *   - "same": both on CPU 0: a wake-up and a context switch.
 * Prints "cross US" and "same US": microseconds per one-way wake-up
 * (a round trip is two).
 *
 *   wake_ping [ROUNDS]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

struct pinger {
	int in, out;	/* read from in, write to out */
	int cpu;
	long rounds;
	int first;	/* writes before it reads */
};

static void *ping(void *arg)
{
	struct pinger *p = arg;
	cpu_set_t set;
	char c = 0;
	long i;

	CPU_ZERO(&set);
	CPU_SET(p->cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set)) {
		perror("pthread_setaffinity_np");
		exit(1);
	}
	for (i = 0; i < p->rounds; i++) {
		if (p->first && write(p->out, &c, 1) != 1)
			exit(1);
		if (read(p->in, &c, 1) != 1)
			exit(1);
		if (!p->first && write(p->out, &c, 1) != 1)
			exit(1);
	}
	return NULL;
}

/* us per one-way wake-up with the two threads on @cpu_a and @cpu_b. */
static double run(int cpu_a, int cpu_b, long rounds)
{
	int ab[2], ba[2];
	struct pinger a, b;
	struct timespec t0, t1;
	pthread_t ta, tb;

	if (pipe(ab) || pipe(ba)) {
		perror("pipe");
		exit(1);
	}
	a = (struct pinger){ .in = ba[0], .out = ab[1], .cpu = cpu_a,
			     .rounds = rounds, .first = 1 };
	b = (struct pinger){ .in = ab[0], .out = ba[1], .cpu = cpu_b,
			     .rounds = rounds, .first = 0 };
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (pthread_create(&tb, NULL, ping, &b) ||
	    pthread_create(&ta, NULL, ping, &a)) {
		perror("pthread_create");
		exit(1);
	}
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	close(ab[0]);
	close(ab[1]);
	close(ba[0]);
	close(ba[1]);
	return ((t1.tv_sec - t0.tv_sec) * 1e6 +
		(t1.tv_nsec - t0.tv_nsec) / 1e3) / (2.0 * rounds);
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 20000;

	if (rounds <= 0 || sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		fprintf(stderr, "usage: wake_ping [ROUNDS]; needs two CPUs\n");
		return 1;
	}
	printf("cross %.2f\n", run(0, 1, rounds));
	printf("same %.2f\n", run(0, 0, rounds));
	return 0;
}
