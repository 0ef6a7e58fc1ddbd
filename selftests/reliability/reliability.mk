# SPDX-License-Identifier: GPL-2.0-only
# Reliability test programs (included by selftests/Makefile): rel_<name>
# from reliability/<name>.c with rel.c and the data-path harness (the
# timing benchmark rel_timing: scripts/bench/bench.mk).
REL_PROGS := loss soak trace

all: $(addprefix $(OUTPUT)/rel_,$(REL_PROGS))

$(OUTPUT)/rel_%: reliability/%.c reliability/rel.c reliability/rel.h datapath/dp.c datapath/dp.h | $(OUTPUT)
	$(CC) $(CFLAGS) -Wno-missing-field-initializers -o $@ reliability/$*.c reliability/rel.c datapath/dp.c $(LDLIBS) -lpthread
