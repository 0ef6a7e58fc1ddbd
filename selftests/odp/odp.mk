# SPDX-License-Identifier: GPL-2.0-only
# On-demand paging tests (included by selftests/Makefile). dp_odp uses the
# data-path harness (datapath/dp.c) and the fault rules of
# reliability/rel.c. The ODP benchmark is scripts/bench/odp_bench.c.
all: $(OUTPUT)/dp_odp

$(OUTPUT)/dp_odp: odp/odp.c datapath/dp.c datapath/dp.h reliability/rel.c reliability/rel.h | $(OUTPUT)
	$(CC) $(CFLAGS) -Wno-missing-field-initializers -o $@ odp/odp.c datapath/dp.c reliability/rel.c $(LDLIBS) -lpthread
