/*
 * config.c - refd's settings: embedded defaults, refd.conf, command line.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "paths.h"

enum opt_type { T_STR, T_LIST, T_U32, T_SIZE, T_BOOL, T_FSYNC };

struct opt {
	const char *name;
	enum opt_type type;
	size_t off;
	uint64_t min, max;
};

#define O(f) offsetof(struct config, f)
static const struct opt opts[] = {
	{ "listen", T_LIST, O(listen), 0, 0 },
	{ "publish", T_LIST, O(publish), 0, 0 },
	{ "state-dir", T_STR, O(state_dir), 0, 0 },
	{ "plugin-dir", T_STR, O(plugin_dir), 0, 0 },
	{ "ruleset-dir", T_STR, O(ruleset_dir), 0, 0 },
	{ "admin-token", T_STR, O(admin_token), 0, 0 },
	{ "pid-file", T_STR, O(pid_file), 0, 0 },
	{ "fsync", T_FSYNC, O(fsync), 0, 0 },
	{ "checkpoint-every", T_U32, O(checkpoint_every), 1, 1000000 },
	{ "max-matches", T_U32, O(max_matches), 1, 10000000 },
	{ "max-waiting-matches", T_U32, O(max_waiting), 1, 10000000 },
	{ "max-waiting-per-connection", T_U32, O(max_waiting_conn), 1,
	    10000000 },
	{ "waiting-expiry", T_U32, O(waiting_expiry), 0, 31536000 },
	{ "finished-eviction", T_U32, O(finished_eviction), 0, 31536000 },
	{ "max-connections", T_U32, O(max_connections), 1, 1000000 },
	{ "max-match-memory", T_SIZE, O(max_match_memory), 4096,
	    (uint64_t)1 << 40 },
	{ "max-log-bytes", T_SIZE, O(max_log_bytes), 4096, (uint64_t)1 << 40 },
	{ "max-message-size", T_SIZE, O(max_message_size), 256,
	    (uint64_t)256 << 20 },
	{ "max-depth", T_U32, O(max_depth), 2, 32 },
	{ "rate-limit", T_U32, O(rate_limit), 0, 10000000 },
	{ "rate-burst", T_U32, O(rate_burst), 1, 10000000 },
	{ "max-batch", T_U32, O(max_batch), 1, 65536 },
	{ "max-connection-memory", T_SIZE, O(max_connection_memory), 1024,
	    (uint64_t)1 << 40 },
	{ "allow-scripted-dice", T_BOOL, O(allow_scripted), 0, 0 },
	{ "plugin-workers", T_BOOL, O(plugin_workers), 0, 0 },
	{ "plugin-timeout", T_U32, O(plugin_timeout), 0, 3600000 },
	{ "plugin-memory", T_SIZE, O(plugin_memory), 0, (uint64_t)1 << 44 },
	{ "plugin-cpu", T_U32, O(plugin_cpu), 0, 31536000 },
	{ "daemonize", T_BOOL, O(daemonize), 0, 0 },
	{ "verbose", T_BOOL, O(verbose), 0, 0 },
};
#undef O

static const struct opt *
find_opt(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (strcmp(opts[i].name, name) == 0)
			return &opts[i];
	return NULL;
}

int
config_known(const char *name)
{
	return find_opt(name) != NULL;
}

void
config_runtime_dir(char *out, size_t len)
{
	const char *x = getenv("XDG_RUNTIME_DIR");

	if (x != NULL && x[0] == '/')
		snprintf(out, len, "%s/refd", x);
	else
		snprintf(out, len, "/tmp/refd-%u", (unsigned)getuid());
}

void
config_default_listen(char *out, size_t len)
{
	char d[PATH_MAX];

	config_runtime_dir(d, sizeof(d));
	snprintf(out, len, "ipc://%s/refd.sock", d);
}

void
config_default_publish(char *out, size_t len)
{
	char d[PATH_MAX];

	config_runtime_dir(d, sizeof(d));
	snprintf(out, len, "ipc://%s/refd-events.sock", d);
}

/* Plugins and content next to the executable (paths.h). */
static int
default_dirs(struct config *c)
{
	char p[PATH_MAX], r[PATH_MAX];

	paths_default(p, sizeof(p), r, sizeof(r));
	c->plugin_dir = strdup(p);
	c->ruleset_dir = strdup(r);
	return c->plugin_dir != NULL && c->ruleset_dir != NULL ? 0 : -1;
}

int
config_init(struct config *c, char *err, size_t errlen)
{
	char b[PATH_MAX + 64];
	const char *x, *home;

	memset(c, 0, sizeof(*c));
	config_default_listen(b, sizeof(b));
	c->listen[c->nlisten++] = strdup(b);
	c->listen[c->nlisten++] = strdup("tcp://127.0.0.1:7411");
	/* for browsers and JavaScript clients (refd-protocol(7), WebSocket) */
	c->listen[c->nlisten++] = strdup("ws://127.0.0.1:7413");
	config_default_publish(b, sizeof(b));
	c->publish[c->npublish++] = strdup(b);
	c->publish[c->npublish++] = strdup("tcp://127.0.0.1:7412");
	c->publish[c->npublish++] = strdup("ws://127.0.0.1:7414");
	x = getenv("XDG_STATE_HOME");
	home = getenv("HOME");
	if (x != NULL && x[0] == '/')
		snprintf(b, sizeof(b), "%s/refd", x);
	else if (home != NULL && home[0] == '/')
		snprintf(b, sizeof(b), "%s/.local/state/refd", home);
	else
		snprintf(b, sizeof(b), "/tmp/refd-%u/state", (unsigned)getuid());
	c->state_dir = strdup(b);
	if (default_dirs(c) != 0 || c->state_dir == NULL ||
	    c->listen[1] == NULL || c->publish[1] == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	c->fsync = FSYNC_ALWAYS;
	c->checkpoint_every = 64;
	c->max_matches = 1000;
	c->max_waiting = 100;
	c->max_waiting_conn = 10;
	c->waiting_expiry = 3600;
	c->finished_eviction = 600;
	c->max_connections = 1000;
	c->max_match_memory = 64 << 20;
	c->max_log_bytes = 256 << 20;
	c->max_message_size = 1 << 20;
	c->max_depth = 16;
	c->rate_limit = 1000;
	c->rate_burst = 2000;
	c->max_batch = 256;
	c->max_connection_memory = 64 << 20;
	c->allow_scripted = 0;
	c->plugin_workers = 1;
	c->plugin_timeout = 2000;
	c->plugin_memory = (uint64_t)1 << 30;
	c->plugin_cpu = 3600;
	return 0;
}

void
config_release(struct config *c)
{
	size_t i;

	for (i = 0; i < c->nlisten; i++)
		free(c->listen[i]);
	for (i = 0; i < c->npublish; i++)
		free(c->publish[i]);
	free(c->state_dir);
	free(c->plugin_dir);
	free(c->ruleset_dir);
	free(c->admin_token);
	free(c->pid_file);
	memset(c, 0, sizeof(*c));
}

void
config_layer(struct config *c)
{
	c->layer_++;
}

/* "64", "64k", "16M", "1G" (powers of 1024). */
static int
parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!isdigit((unsigned char)s[0]))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0)
		return -1;
	switch (*end) {
	case '\0':
		break;
	case 'k': case 'K':
		v <<= 10;
		end++;
		break;
	case 'm': case 'M':
		v <<= 20;
		end++;
		break;
	case 'g': case 'G':
		v <<= 30;
		end++;
		break;
	default:
		return -1;
	}
	if (*end != '\0')
		return -1;
	*out = v;
	return 0;
}

static int
valid_endpoint(const char *v)
{
	return strncmp(v, "ipc://", 6) == 0 || strncmp(v, "tcp://", 6) == 0 ||
	    strncmp(v, "ws://", 5) == 0 || strncmp(v, "inproc://", 9) == 0;
}

int
config_set(struct config *c, const char *name, const char *value,
    char *err, size_t errlen)
{
	const struct opt *o = find_opt(name);
	void *f;
	uint64_t v;

	if (o == NULL) {
		snprintf(err, errlen, "unknown option '%s'", name);
		return -1;
	}
	f = (char *)c + o->off;
	switch (o->type) {
	case T_STR: {
		char **sp = f;
		char *d;

		if (value[0] == '\0') {
			snprintf(err, errlen, "option '%s': empty value", name);
			return -2;
		}
		if ((d = strdup(value)) == NULL) {
			snprintf(err, errlen, "out of memory");
			return -2;
		}
		free(*sp);
		*sp = d;
		return 0;
	}
	case T_LIST: {
		char **list = f;
		size_t *n = strcmp(name, "listen") == 0 ? &c->nlisten :
		    &c->npublish;
		int *layer = strcmp(name, "listen") == 0 ? &c->listen_layer_ :
		    &c->publish_layer_;
		size_t i;

		if (!valid_endpoint(value)) {
			snprintf(err, errlen, "option '%s': endpoint '%s': "
			    "expected ipc://PATH, tcp://HOST:PORT or ws://",
			    name, value);
			return -2;
		}
		if (*layer != c->layer_) {
			for (i = 0; i < *n; i++)
				free(list[i]);
			*n = 0;
			*layer = c->layer_;
		}
		if (*n == CONFIG_MAX_ENDPOINTS) {
			snprintf(err, errlen, "option '%s': more than %d "
			    "endpoints", name, CONFIG_MAX_ENDPOINTS);
			return -2;
		}
		if ((list[*n] = strdup(value)) == NULL) {
			snprintf(err, errlen, "out of memory");
			return -2;
		}
		(*n)++;
		return 0;
	}
	case T_BOOL:
		if (strcmp(value, "yes") == 0 || strcmp(value, "on") == 0 ||
		    strcmp(value, "true") == 0 || strcmp(value, "1") == 0) {
			*(int *)f = 1;
		} else if (strcmp(value, "no") == 0 ||
		    strcmp(value, "off") == 0 || strcmp(value, "false") == 0 ||
		    strcmp(value, "0") == 0) {
			*(int *)f = 0;
		} else {
			snprintf(err, errlen, "option '%s': value '%s': "
			    "expected yes or no", name, value);
			return -2;
		}
		return 0;
	case T_FSYNC:
		if (strcmp(value, "always") == 0)
			c->fsync = FSYNC_ALWAYS;
		else if (strcmp(value, "batch") == 0)
			c->fsync = FSYNC_BATCH;
		else if (strcmp(value, "never") == 0)
			c->fsync = FSYNC_NEVER;
		else {
			snprintf(err, errlen, "option '%s': value '%s': "
			    "expected always, batch or never", name, value);
			return -2;
		}
		return 0;
	case T_U32:
	case T_SIZE:
		if (parse_size(value, &v) != 0 || v < o->min || v > o->max) {
			snprintf(err, errlen, "option '%s': value '%s': "
			    "expected %s %" PRIu64 "..%" PRIu64, name, value,
			    o->type == T_SIZE ? "a size (k, M, G suffixes) in" :
			    "an integer in", o->min, o->max);
			return -2;
		}
		if (o->type == T_U32)
			*(uint32_t *)f = (uint32_t)v;
		else
			*(uint64_t *)f = v;
		return 0;
	}
	return -1;
}

int
config_load(struct config *c, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char line[4096], msg[512];
	int lineno = 0;

	if (f == NULL) {
		snprintf(err, errlen, "config '%s': cannot open: %s", path,
		    strerror(errno));
		return -1;
	}
	config_layer(c);
	while (fgets(line, sizeof(line), f) != NULL) {
		char *p = line, *name, *value, *e;

		lineno++;
		if (strchr(line, '\n') == NULL && !feof(f)) {
			snprintf(err, errlen, "%s:%d: line too long", path,
			    lineno);
			fclose(f);
			return -1;
		}
		if ((e = strchr(p, '#')) != NULL)
			*e = '\0';
		while (isspace((unsigned char)*p))
			p++;
		e = p + strlen(p);
		while (e > p && isspace((unsigned char)e[-1]))
			*--e = '\0';
		if (*p == '\0')
			continue;
		name = p;
		while (*p != '\0' && !isspace((unsigned char)*p) && *p != '=')
			p++;
		if (*p != '\0')
			*p++ = '\0';
		while (isspace((unsigned char)*p) || *p == '=')
			p++;
		value = p;
		if (*value == '\0') {
			snprintf(err, errlen, "%s:%d: option '%s': missing value",
			    path, lineno, name);
			fclose(f);
			return -1;
		}
		if (value[0] == '"' && e > value + 1 && e[-1] == '"') {
			value++;
			e[-1] = '\0';
		}
		if (config_set(c, name, value, msg, sizeof(msg)) != 0) {
			snprintf(err, errlen, "%s:%d: %s", path, lineno, msg);
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	return 0;
}

void
config_dump(const struct config *c, FILE *f)
{
	static const char *const fs[] = { "always", "batch", "never" };
	size_t i;

	for (i = 0; i < c->nlisten; i++)
		fprintf(f, "listen %s\n", c->listen[i]);
	for (i = 0; i < c->npublish; i++)
		fprintf(f, "publish %s\n", c->publish[i]);
	fprintf(f, "state-dir %s\n", c->state_dir);
	fprintf(f, "plugin-dir %s\n", c->plugin_dir);
	fprintf(f, "ruleset-dir %s\n", c->ruleset_dir);
	if (c->admin_token != NULL)
		fprintf(f, "admin-token (set)\n");
	if (c->pid_file != NULL)
		fprintf(f, "pid-file %s\n", c->pid_file);
	fprintf(f, "fsync %s\n", fs[c->fsync]);
	fprintf(f, "checkpoint-every %" PRIu32 "\n", c->checkpoint_every);
	fprintf(f, "max-matches %" PRIu32 "\n", c->max_matches);
	fprintf(f, "max-waiting-matches %" PRIu32 "\n", c->max_waiting);
	fprintf(f, "max-waiting-per-connection %" PRIu32 "\n",
	    c->max_waiting_conn);
	fprintf(f, "waiting-expiry %" PRIu32 "\n", c->waiting_expiry);
	fprintf(f, "finished-eviction %" PRIu32 "\n", c->finished_eviction);
	fprintf(f, "max-connections %" PRIu32 "\n", c->max_connections);
	fprintf(f, "max-match-memory %" PRIu64 "\n", c->max_match_memory);
	fprintf(f, "max-log-bytes %" PRIu64 "\n", c->max_log_bytes);
	fprintf(f, "max-message-size %" PRIu64 "\n", c->max_message_size);
	fprintf(f, "max-depth %" PRIu32 "\n", c->max_depth);
	fprintf(f, "rate-limit %" PRIu32 "\n", c->rate_limit);
	fprintf(f, "rate-burst %" PRIu32 "\n", c->rate_burst);
	fprintf(f, "max-batch %" PRIu32 "\n", c->max_batch);
	fprintf(f, "max-connection-memory %" PRIu64 "\n",
	    c->max_connection_memory);
	fprintf(f, "allow-scripted-dice %s\n", c->allow_scripted ? "yes" : "no");
	fprintf(f, "plugin-workers %s\n", c->plugin_workers ? "yes" : "no");
	fprintf(f, "plugin-timeout %" PRIu32 "\n", c->plugin_timeout);
	fprintf(f, "plugin-memory %" PRIu64 "\n", c->plugin_memory);
	fprintf(f, "plugin-cpu %" PRIu32 "\n", c->plugin_cpu);
	fprintf(f, "daemonize %s\n", c->daemonize ? "yes" : "no");
	fprintf(f, "verbose %s\n", c->verbose ? "yes" : "no");
}

uint64_t
config_recv_cap(const struct config *c)
{
	uint64_t cap = c->max_message_size * 2 + (1 << 20);

	return cap > INT32_MAX ? INT32_MAX : cap;
}

static uint64_t
min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

void
config_memory(const struct config *c, FILE *f)
{
	uint64_t cap = config_recv_cap(c), tr, turn, ms;

	tr = (uint64_t)c->max_connections * cap;
	turn = min_u64((uint64_t)c->max_batch * cap,
	    (uint64_t)c->max_connections * c->max_connection_memory);
	ms = (uint64_t)c->max_matches * (c->max_match_memory +
	    c->max_log_bytes);
	fprintf(f, "# memory bound, from the settings, in bytes:\n");
	fprintf(f, "#   transport %" PRIu64 " (max-connections x the receive "
	    "cap of %" PRIu64 ": a partial message per served connection; "
	    "libnanomsg does not bound connections refd does not serve)\n",
	    tr, cap);
	fprintf(f, "#   requests %" PRIu64 " (one turn: max-batch x the "
	    "receive cap, at most max-connections x "
	    "max-connection-memory)\n", turn);
	fprintf(f, "#   matches %" PRIu64 " (max-matches x (max-match-memory "
	    "+ max-log-bytes))\n", ms);
	fprintf(f, "#   total %" PRIu64 " (plus plugin-memory per plugin "
	    "worker, and the finished matches: their history until "
	    "finished-eviction, then a summary each)\n", tr + turn + ms);
}

void
config_match(const struct config *c, struct match_config *mc)
{
	memset(mc, 0, sizeof(*mc));
	mc->state_dir = c->state_dir;
	mc->fsync = c->fsync;
	mc->checkpoint_every = c->checkpoint_every;
	mc->max_matches = c->max_matches;
	mc->max_match_memory = (size_t)c->max_match_memory;
	mc->max_log_bytes = (size_t)c->max_log_bytes;
	mc->allow_scripted = c->allow_scripted;
}
