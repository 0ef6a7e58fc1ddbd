# SPDX-License-Identifier: GPL-2.0-only
# Error selftest programs (included by selftests/Makefile): NAME from
# errors/NAME.c with the helpers errors/err.c and the data-path harness.
ERR_PROGS := err_resp err_flush err_async err_mw err_ud err_ring err_pkey err_rdatomic

all: $(addprefix $(OUTPUT)/,$(ERR_PROGS))

ERR_DEPS := errors/err.c errors/err.h datapath/dp.c datapath/dp.h

$(OUTPUT)/err_%: errors/err_%.c $(ERR_DEPS) | $(OUTPUT)
	$(CC) $(CFLAGS) -Wno-missing-field-initializers -o $@ $< errors/err.c datapath/dp.c $(LDLIBS)
