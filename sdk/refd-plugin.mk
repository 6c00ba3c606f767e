# refd-plugin.mk - build one refd ruleset plugin from a five-line Makefile:
#
#	REFD_SDK ?= $(shell pkg-config --variable=sdkdir refd-plugin)
#	PLUGIN = mygame
#	SRCS = mygame.c
#	include $(REFD_SDK)/refd-plugin.mk
#
# REFD_SDK holds include/refd/*.h and refd-plugin.mk; REFD_SDKLIB holds
# librefdsdk.a (default: $(REFD_SDK)/lib, as installed).  OUT is where
# $(PLUGIN).so goes (default: this directory).  `make check` loads the
# plugin and runs refctl check-plugin on it when REFCTL is set.
CC ?= cc
REFD_SDKLIB ?= $(REFD_SDK)/lib
OUT ?= .
PLUGIN_CFLAGS = -std=c99 -O2 -g -fPIC -fvisibility=hidden -Wall -Wextra -Werror -Wno-format-truncation \
	-I$(REFD_SDK)/include $(EXTRA_CFLAGS)
PLUGIN_LDFLAGS = -shared -Wl,-z,defs $(EXTRA_LDFLAGS)
PLUGIN_LIBS = $(REFD_SDKLIB)/librefdsdk.a -lmsgpackc

all: $(OUT)/$(PLUGIN).so

$(OUT)/$(PLUGIN).so: $(SRCS) $(REFD_SDKLIB)/librefdsdk.a
	@mkdir -p $(OUT)
	$(CC) $(PLUGIN_CFLAGS) $(CFLAGS) -o $@ $(SRCS) $(PLUGIN_LDFLAGS) $(LDFLAGS) $(PLUGIN_LIBS)
	chmod go-w $@

clean:
	rm -f $(OUT)/$(PLUGIN).so

.PHONY: all clean
