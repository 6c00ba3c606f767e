# refd-plugin.mk - build one refd ruleset plugin from a five-line Makefile:
#
#	# mygame: a refd ruleset plugin
#	REFD_SDK ?= $(shell pkg-config --variable=sdkdir refd-plugin)
#	PLUGIN = mygame
#	SRCS = mygame.c
#	include $(or $(wildcard $(REFD_SDK)/refd-plugin.mk),$(error ...))
#
# (the guard on the include line names what to install when the SDK is
# missing; sdk/examples/duel/Makefile spells it out).
#
# REFD_SDK is either the sdk/ directory of a refd source tree (headers in
# $(REFD_SDK)/include; then REFD_SDKLIB names the directory holding a
# built librefdsdk.a) or the installed SDK directory, whose headers and
# library pkg-config's refd-plugin package names.  OUT is where
# $(PLUGIN).so goes (default: this directory).  EXTRA_CFLAGS and
# EXTRA_LDFLAGS are added to the compile and link lines.
#
# `make check` runs the conformance checker on the plugin: REFCTL names
# refctl (default: refctl on PATH), CONTENT the ruleset's content
# directory (default: ./content when it exists), CHECK_FLAGS more options
# (e.g. --games 200).
CC ?= cc
OUT ?= .
PKG_CONFIG ?= pkg-config

ifneq ($(wildcard $(REFD_SDK)/include/refd/plugin.h),)
# A source tree: the library is in its build directory unless named.
REFD_SDKLIB ?= $(if $(wildcard $(REFD_SDK)/lib/librefdsdk.a),$(REFD_SDK)/lib,$(REFD_SDK)/../build/lib)
REFD_SDK_CFLAGS = -I$(REFD_SDK)/include
REFD_SDK_LIBS = $(REFD_SDKLIB)/librefdsdk.a -lmsgpackc
else
# An installed SDK.
REFD_SDKLIB ?= $(shell $(PKG_CONFIG) --variable=libdir refd-plugin)
REFD_SDK_CFLAGS = $(shell $(PKG_CONFIG) --cflags refd-plugin)
REFD_SDK_LIBS = $(shell $(PKG_CONFIG) --libs refd-plugin)
endif

PLUGIN_CFLAGS = -std=c99 -O2 -g -fPIC -fvisibility=hidden -Wall -Wextra -Werror \
	-Wno-format-truncation $(REFD_SDK_CFLAGS) $(EXTRA_CFLAGS)
PLUGIN_LDFLAGS = -shared -Wl,-z,defs $(EXTRA_LDFLAGS)

all: $(OUT)/$(PLUGIN).so

$(OUT)/$(PLUGIN).so: $(SRCS) $(REFD_SDKLIB)/librefdsdk.a
	@mkdir -p $(OUT)
	$(CC) $(PLUGIN_CFLAGS) $(CFLAGS) -o $@ $(SRCS) $(PLUGIN_LDFLAGS) $(LDFLAGS) $(REFD_SDK_LIBS)
	chmod go-w $@

$(REFD_SDKLIB)/librefdsdk.a:
	@echo "refd-plugin.mk: $@ not found; run make in the refd tree or set REFD_SDKLIB" >&2
	@exit 1

REFCTL ?= refctl
CONTENT ?= $(wildcard content)

check: $(OUT)/$(PLUGIN).so
	$(REFCTL) check-plugin $(OUT)/$(PLUGIN).so $(if $(CONTENT),--content $(CONTENT)) $(CHECK_FLAGS)

clean:
	rm -f $(OUT)/$(PLUGIN).so

.PHONY: all check clean
