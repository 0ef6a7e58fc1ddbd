# SPDX-License-Identifier: GPL-2.0-only
# On-demand paging tests and benchmarks (included by selftests/Makefile).
# dp_odp uses the data-path harness (datapath/dp.c) and the fault rules of
# reliability/rel.c; the benchmarks are
# standalone verbs programs.
all: $(OUTPUT)/dp_odp

$(OUTPUT)/dp_odp: odp/odp.c datapath/dp.c datapath/dp.h reliability/rel.c reliability/rel.h | $(OUTPUT)
	$(CC) $(CFLAGS) -Wno-missing-field-initializers -o $@ odp/odp.c datapath/dp.c reliability/rel.c $(LDLIBS) -lpthread

all: $(OUTPUT)/dp_odp_bench

$(OUTPUT)/dp_odp_bench: odp/odp_bench.c datapath/dp.c datapath/dp.h | $(OUTPUT)
	$(CC) $(CFLAGS) -Wno-missing-field-initializers -o $@ odp/odp_bench.c datapath/dp.c $(LDLIBS) -lpthread
