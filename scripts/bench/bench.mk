# SPDX-License-Identifier: GPL-2.0-only
# Benchmark programs on the selftests' harness, built with them (included
# by selftests/Makefile, whose directory is the current one) into
# build/selftests/ for scripts/bench/: dp_odp_bench (odp_bench.sh,
# make bench-odp) and rel_timing (reliability.sh, make bench-reliability).
BENCH := ../scripts/bench

all: $(OUTPUT)/dp_odp_bench $(OUTPUT)/rel_timing

$(OUTPUT)/dp_odp_bench: $(BENCH)/odp_bench.c datapath/dp.c datapath/dp.h | $(OUTPUT)
	$(CC) $(CFLAGS) -Wno-missing-field-initializers -o $@ $< datapath/dp.c $(LDLIBS) -lpthread

$(OUTPUT)/rel_timing: $(BENCH)/rel_timing.c reliability/rel.c reliability/rel.h datapath/dp.c datapath/dp.h | $(OUTPUT)
	$(CC) $(CFLAGS) -Wno-missing-field-initializers -o $@ $< reliability/rel.c datapath/dp.c $(LDLIBS) -lpthread
