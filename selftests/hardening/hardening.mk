# SPDX-License-Identifier: GPL-2.0-only
# Hardening test programs (included by selftests/Makefile): hard_<name>
# from hardening/hard_<name>.c, with the error and data-path harnesses and
# the FUSE file of hardening/fuse_file.c.
HARD_PROGS := $(patsubst hardening/%.c,%,$(wildcard hardening/hard_*.c))

all: $(addprefix $(OUTPUT)/,$(HARD_PROGS))

HARD_SRCS := errors/err.c datapath/dp.c hardening/fuse_file.c
HARD_DEPS := $(HARD_SRCS) errors/err.h datapath/dp.h hardening/fuse_file.h

$(OUTPUT)/hard_%: hardening/hard_%.c $(HARD_DEPS) | $(OUTPUT)
	$(CC) $(CFLAGS) -Wno-missing-field-initializers -o $@ $< $(HARD_SRCS) $(LDLIBS) -lpthread
