# SPDX-License-Identifier: GPL-2.0-only
# Hardening test programs (included by selftests/Makefile): hard_<name>
# from hardening/hard_<name>.c, with the error and data-path harnesses.
HARD_PROGS := $(patsubst hardening/%.c,%,$(wildcard hardening/hard_*.c))

all: $(addprefix $(OUTPUT)/,$(HARD_PROGS))

HARD_DEPS := errors/err.c errors/err.h datapath/dp.c datapath/dp.h

$(OUTPUT)/hard_%: hardening/hard_%.c $(HARD_DEPS) | $(OUTPUT)
	$(CC) $(CFLAGS) -Wno-missing-field-initializers -o $@ $< errors/err.c datapath/dp.c $(LDLIBS) -lpthread
