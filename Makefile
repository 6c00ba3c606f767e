# refd - one build for everything.
#
#   make            build refd, refctl, the SDK, every plugin and the tests
#   make check      build and run every test through prove
#   make run        build, then start refd and play a demo match of each ruleset
#   make bench      benchmarks (figures and ratios, never pass/fail)
#   make fuzz       libFuzzer targets (clang)
#   make install    PREFIX=/usr/local DESTDIR=
#   make deps       install (as root) or name the missing Debian packages
#
# SANITIZE=1 builds everything with AddressSanitizer and UBSan into
# build/san so both builds can coexist.

VERSION = 0.1.0
ABI_VERSION := $(shell awk '/define REFD_ABI_MAJOR/ { a = $$3 } /define REFD_ABI_MINOR/ { b = $$3 } \
	END { print a "." b }' sdk/include/refd/plugin.h)
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR = $(PREFIX)/bin
LIBDIR = $(PREFIX)/lib
PLUGINDIR = $(LIBDIR)/refd/plugins
DATADIR = $(PREFIX)/share/refd
INCDIR = $(PREFIX)/include
MANDIR = $(PREFIX)/share/man
STATEDIR ?= /var/lib/refd
# The Python client (package refd), where Debian's python3 looks.
PYTHONDIR ?= $(PREFIX)/lib/python3/dist-packages

CC ?= cc
CXX ?= c++
FUZZ_CC ?= clang
ifeq ($(FUZZ),1)
# make fuzz: clang with libFuzzer's coverage, ASan and UBSan, in build/fuzz.
B ?= build/fuzz
CC = $(FUZZ_CC)
SANFLAGS = -fsanitize=address,undefined,fuzzer-no-link -fno-omit-frame-pointer -fno-sanitize-recover=undefined
OPT = -O1 -g
SANDEFS = -DREFD_SANITIZE
else ifeq ($(SANITIZE),1)
B ?= build/san
SANFLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
OPT = -O1 -g
# The plugin worker's seccomp filter allows what the sanitizer runtime
# needs (refd/worker.c).
SANDEFS = -DREFD_SANITIZE
else
B ?= build
SANFLAGS =
OPT = -O2 -g
endif

PKGS = nanomsg msgpack libsodium jansson libseccomp
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

WARN = -Wall -Wextra -Werror -Wno-format-truncation
ifeq ($(FUZZ),1)
# clang: no -Wformat-truncation; plugins leave the sanitizer runtime's
# symbols to the program.
WARN = -Wall -Wextra -Werror
PLUGIN_FUZZFLAGS = -Wno-unknown-warning-option -Wl,-z,undefs
endif
CFLAGS_ALL = -std=c11 -D_GNU_SOURCE $(OPT) $(WARN) $(SANFLAGS) -Isdk/include -Irefd $(PKG_CFLAGS) \
	-DREFD_VERSION='"$(VERSION)"' $(SANDEFS) $(CFLAGS)
PIC_CFLAGS = -std=c99 -D_GNU_SOURCE $(OPT) $(WARN) $(SANFLAGS) -fPIC -fvisibility=hidden -Isdk/include $(CFLAGS)
LDLIBS_ALL = $(PKG_LIBS) -ldl -lm $(LDLIBS)
LDFLAGS_ALL = $(SANFLAGS) $(LDFLAGS)

# SDK helper library (static, position-independent: linked into plugins).
SDK_SRCS := $(wildcard sdk/lib/*.c)
SDK_OBJS := $(patsubst sdk/lib/%.c,$(B)/obj/sdk/%.o,$(SDK_SRCS))
SDK_LIB := $(B)/lib/librefdsdk.a

# Host library: everything in refd/ but the programs' main files.
MAIN_SRCS := refd/refd.c $(wildcard refd/refctl*.c)
HOST_SRCS := $(filter-out $(MAIN_SRCS),$(wildcard refd/*.c))
HOST_OBJS := $(patsubst refd/%.c,$(B)/obj/host/%.o,$(HOST_SRCS))
HOST_LIB := $(B)/lib/librefdhost.a
REFCTL_SRCS := $(wildcard refd/refctl*.c)
REFCTL_OBJS := $(patsubst refd/%.c,$(B)/obj/host/%.o,$(REFCTL_SRCS))

# Ruleset plugins: plugins/<name>/*.c -> $(B)/plugins/<name>.so
PLUGIN_NAMES := $(notdir $(patsubst %/,%,$(dir $(wildcard plugins/*/*.c))))
PLUGIN_NAMES := $(sort $(PLUGIN_NAMES))
PLUGINS := $(patsubst %,$(B)/plugins/%.so,$(PLUGIN_NAMES)) $(B)/plugins/duel.so

# Content: rulesets/<name> and the example's content, gathered in $(B)/rulesets.
CONTENT_STAMP := $(B)/rulesets/.stamp

# Tests.
UNIT_SRCS := $(wildcard tests/unit/*.c) $(wildcard tests/abi/*.c) $(wildcard tests/scenarios/*.c)
UNIT_BINS := $(patsubst tests/%.c,$(B)/tests/%,$(UNIT_SRCS))
FIXTURES := good good_old_minor bad_magic newer_major newer_minor size_too_big \
	no_entry init_fails name_mismatch unknown_cap faulty size_lies entry_function rollback wild_ops \
	crashes loops sealed
FIXTURE_SOS := $(patsubst %,$(B)/tests/plugins/%.so,$(FIXTURES))

PROGS := $(B)/bin/refd $(B)/bin/refctl

# Fuzz targets (tests/fuzz/): linked with libFuzzer by `make fuzz`, and
# with tests/fuzz/replay.c into $(B)/tests/fuzz/ so that make check replays
# the seed and regression inputs.
FUZZ_TARGETS := envelope op log content create apply
FUZZ_BINS := $(patsubst %,$(B)/fuzz/%,$(FUZZ_TARGETS))
FUZZ_REPLAYS := $(patsubst %,$(B)/tests/fuzz/%,$(FUZZ_TARGETS))
FUZZ_DEPS := tests/fuzz/fuzz.h tests/fuzz/daemon.h $(B)/obj/host/refctl_verify.o $(HOST_LIB) $(SDK_LIB)

# A duel that behaves differently, for the verifier's tests.
DEVIANT_SO := $(B)/tests/plugins/deviant/duel.so

# The web viewer (web/, served by refctl web): a static tree in build/web
# with its npm dependencies, built once `make deps` has installed them.
WEB_SRCS := $(wildcard web/*.html web/*.js web/*.css) web/assemble.sh web/package-lock.json \
	clients/js/src/index.js
WEB_OUT := $(if $(wildcard web/node_modules/libsodium-wrappers),$(B)/web/index.html)

all: $(PROGS) $(PLUGINS) $(CONTENT_STAMP) $(UNIT_BINS) $(FIXTURE_SOS) $(DEVIANT_SO) $(FUZZ_REPLAYS) \
	$(B)/bench/refd-bench $(WEB_OUT)
	@$(if $(WEB_OUT),,echo "note: the web viewer is not built: run 'make deps' (npm ci in web/)")

$(B)/web/index.html: $(WEB_SRCS)
	sh web/assemble.sh $(B)/web

$(B)/obj/sdk/%.o: sdk/lib/%.c $(wildcard sdk/include/refd/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(PIC_CFLAGS) $(PKG_CFLAGS) -c -o $@ $<

$(SDK_LIB): $(SDK_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(B)/obj/host/%.o: refd/%.c $(wildcard refd/*.h) $(wildcard sdk/include/refd/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -DREFD_PLUGINDIR='"$(PLUGINDIR)"' -DREFD_DATADIR='"$(DATADIR)"' \
		-DREFD_STATEDIR='"$(STATEDIR)"' -c -o $@ $<

$(HOST_LIB): $(HOST_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(B)/bin/refd: $(B)/obj/host/refd.o $(HOST_LIB) $(SDK_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -rdynamic -o $@ $^ $(LDLIBS_ALL)

$(B)/bin/refctl: $(REFCTL_OBJS) $(HOST_LIB) $(SDK_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LDLIBS_ALL)

.SECONDEXPANSION:
$(B)/plugins/%.so: $$(wildcard plugins/%/*.c) $$(wildcard plugins/%/*.h) $(SDK_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(PIC_CFLAGS) -Iplugins/$* -shared -Wl,-z,defs -o $@ $(wildcard plugins/$*/*.c) \
		$(SDK_LIB) $(SANFLAGS) $(PLUGIN_FUZZFLAGS) -lmsgpackc
	chmod go-w $@

# The example plugin is built with its own five-line Makefile.
$(B)/plugins/duel.so: sdk/examples/duel/duel.c sdk/refd-plugin.mk $(SDK_LIB)
	$(MAKE) -s -C sdk/examples/duel CC="$(CC)" REFD_SDK=$(abspath sdk) REFD_SDKLIB=$(abspath $(B)/lib) \
		OUT=$(abspath $(B)/plugins) EXTRA_CFLAGS="$(SANFLAGS) $(PLUGIN_FUZZFLAGS)" \
		EXTRA_LDFLAGS="$(SANFLAGS) $(PLUGIN_FUZZFLAGS)"

$(CONTENT_STAMP): $(shell find rulesets sdk/examples/duel/content -type f 2>/dev/null)
	@mkdir -p $(B)/rulesets
	rm -rf $(B)/rulesets/*
	for d in rulesets/*/; do [ -d "$$d" ] && cp -R "$$d" $(B)/rulesets/; done; true
	mkdir -p $(B)/rulesets/duel && cp -R sdk/examples/duel/content/. $(B)/rulesets/duel/
	touch $@

$(B)/tests/%: tests/%.c tests/tap.h $(HOST_LIB) $(SDK_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Itests -o $@ $< $(HOST_LIB) $(SDK_LIB) $(LDFLAGS_ALL) $(LDLIBS_ALL)

$(FUZZ_REPLAYS): $(B)/tests/fuzz/%: tests/fuzz/%.c tests/fuzz/replay.c $(FUZZ_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Itests/fuzz -o $@ $< tests/fuzz/replay.c $(B)/obj/host/refctl_verify.o \
		$(HOST_LIB) $(SDK_LIB) $(LDFLAGS_ALL) $(LDLIBS_ALL)

$(FUZZ_BINS): $(B)/fuzz/%: tests/fuzz/%.c $(FUZZ_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Itests/fuzz -fsanitize=fuzzer -o $@ $< $(B)/obj/host/refctl_verify.o \
		$(HOST_LIB) $(SDK_LIB) $(LDFLAGS_ALL) $(LDLIBS_ALL)

# good_old_minor is built against the frozen 1.0 headers in tests/abi/v1.0.
$(B)/tests/plugins/good_old_minor.so: FIXTURE_INC = -Itests/abi/v1.0
$(B)/tests/plugins/%.so: tests/plugins/fixture.c $(SDK_LIB) $(wildcard sdk/include/refd/*.h tests/abi/v1.0/refd/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(FIXTURE_INC) $(PIC_CFLAGS) -DFIXTURE_$* -DFIXTURE_NAME='"$*"' -shared -o $@ $< $(SDK_LIB) $(SANFLAGS) -lmsgpackc
	chmod go-w $@

$(DEVIANT_SO): tests/plugins/deviant.c sdk/examples/duel/duel.c $(SDK_LIB) $(wildcard sdk/include/refd/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(PIC_CFLAGS) -shared -o $@ $< $(SDK_LIB) $(SANFLAGS) -lmsgpackc
	chmod go-w $@

# Every SDK header compiles alone as C99 and as C++.
HEADER_CHECKS := $(patsubst sdk/include/refd/%.h,$(B)/hdrcheck/%.ok,$(wildcard sdk/include/refd/*.h))
$(B)/hdrcheck/%.ok: sdk/include/refd/%.h
	@mkdir -p $(dir $@)
	echo '#include <refd/$*.h>' | $(CC) -std=c99 -pedantic $(WARN) -Isdk/include -x c -fsyntax-only -
	echo '#include <refd/$*.h>' | $(CXX) -std=c++11 -pedantic $(WARN) -Isdk/include -x c++ -fsyntax-only -
	touch $@

TEST_ENV = REFD_BUILD=$(abspath $(B)) REFD_SRC=$(abspath .) REFD_SANITIZE=$(SANITIZE)
TESTS := $(UNIT_BINS) $(wildcard tests/*.t) $(wildcard tests/integ/*.t)

# check and run install the missing Debian packages first (as root), then
# build in a sub-make so that pkg-config sees the new packages.
check: deps
	$(MAKE) all $(HEADER_CHECKS)
	$(TEST_ENV) prove --exec 'sh tests/run-test' $(PROVE_FLAGS) $(TESTS)

run: deps
	$(MAKE) all
	sh tests/run-demo.sh $(B)

# The benchmark harness (make bench; tests/bench.t runs it small).
$(B)/bench/refd-bench: tests/bench/bench.c $(HOST_LIB) $(SDK_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -o $@ $< $(HOST_LIB) $(SDK_LIB) $(LDFLAGS_ALL) $(LDLIBS_ALL) -lpthread

bench: all
	@mkdir -p $(B)/bench
	$(TEST_ENV) sh tests/bench/run.sh $(BENCH_FLAGS)

deps:
	@sh tests/deps.sh

# Build the fuzz targets with clang into build/fuzz and run each for
# FUZZ_SECONDS (default 30); see tests/fuzz/README.md.
fuzz:
	@sh tests/deps.sh fuzz
	$(MAKE) FUZZ=1 fuzz-build
	sh tests/fuzz/run.sh build/fuzz

fuzz-build: $(PLUGINS) $(CONTENT_STAMP) $(FUZZ_BINS)

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(PLUGINDIR) $(DESTDIR)$(DATADIR)/rulesets \
		$(DESTDIR)$(INCDIR)/refd $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(DATADIR)/sdk \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(MANDIR)/man5 \
		$(DESTDIR)$(MANDIR)/man7 $(DESTDIR)$(MANDIR)/man8
	install -m 755 $(PROGS) $(DESTDIR)$(BINDIR)/
	install -m 755 $(PLUGINS) $(DESTDIR)$(PLUGINDIR)/
	cp -R $(B)/rulesets/. $(DESTDIR)$(DATADIR)/rulesets/
	rm -f $(DESTDIR)$(DATADIR)/rulesets/.stamp
	install -m 644 sdk/include/refd/*.h $(DESTDIR)$(INCDIR)/refd/
	install -m 644 $(SDK_LIB) $(DESTDIR)$(LIBDIR)/
	install -m 644 sdk/refd-plugin.mk $(DESTDIR)$(DATADIR)/sdk/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' -e 's|@ABI@|$(ABI_VERSION)|g' \
		sdk/refd-plugin.pc.in \
		> $(DESTDIR)$(LIBDIR)/pkgconfig/refd-plugin.pc
	for m in man/*.[1-8]; do [ -f "$$m" ] || continue; s=$${m##*.}; \
		install -m 644 $$m $(DESTDIR)$(MANDIR)/man$$s/; done
	install -d $(DESTDIR)$(PYTHONDIR)/refd
	install -m 644 clients/python/refd/*.py $(DESTDIR)$(PYTHONDIR)/refd/
	if [ -f $(B)/web/index.html ]; then install -d $(DESTDIR)$(DATADIR)/web && \
		cp -R $(B)/web/. $(DESTDIR)$(DATADIR)/web/; fi

clean:
	rm -rf build

.PHONY: all check run bench deps install clean fuzz fuzz-build
