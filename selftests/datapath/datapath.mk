# SPDX-License-Identifier: GPL-2.0-only
# Data-path test programs (included by selftests/Makefile): dp_<name> from
# datapath/<name>.c and the shared harness datapath/dp.c.
DP_PROGS := send_recv rdma_rw atomic atomic_write events srq qp_ex mcast rereg doorbell xrc

all: $(addprefix $(OUTPUT)/dp_,$(DP_PROGS))

$(OUTPUT)/dp_%: datapath/%.c datapath/dp.c datapath/dp.h | $(OUTPUT)
	$(CC) $(CFLAGS) -Wno-missing-field-initializers -o $@ datapath/$*.c datapath/dp.c $(LDLIBS) -lpthread
