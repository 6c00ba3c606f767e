/*
 * refd.c - the referee daemon: options, configuration, plugins, main loop.
 */
#include <dirent.h>
#include <errno.h>
#include <time.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "refd/errors.h"

#include "buf.h"
#include "config.h"
#include "engine.h"
#include "log.h"
#include "match.h"
#include "publisher.h"
#include "server.h"
#include "worker.h"

static volatile sig_atomic_t stop_flag;

static void
on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: refd [-dhtVv] [-f FILE] [--NAME VALUE ...]\n"
	    "       refd --plugin-info FILE.so\n"
	    "       refd --print-pubkey [-f FILE] [--state-dir DIR]\n"
	    "  -f FILE            read settings from FILE (refd.conf(5))\n"
	    "  -t                 check the configuration and plugins, then exit\n"
	    "  -d                 detach and log to syslog (daemonize yes)\n"
	    "  -v                 verbose logging\n"
	    "  -V                 print the version and exit\n"
	    "  --NAME VALUE       any refd.conf setting, e.g. --listen ipc:///tmp/r.sock\n"
	    "See refd(8).\n");
}

/* mkdir -p with mode for the last component. */
static int
mkdirs(const char *path, mode_t mode)
{
	char p[PATH_MAX];
	char *s;

	if (snprintf(p, sizeof(p), "%s", path) >= (int)sizeof(p))
		return -1;
	for (s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) != 0 && errno != EEXIST)
			return -1;
		*s = '/';
	}
	if (mkdir(p, mode) != 0 && errno != EEXIST)
		return -1;
	return 0;
}

/*
 * An ipc socket's directory must be refd's user's own and writable by
 * nobody else: whoever may write there may replace the socket file and
 * answer refd's clients in its place.
 */
static int
ipc_dir_safe(const char *ep, const char *d)
{
	struct stat st;

	if (stat(d, &st) != 0) {
		log_err("endpoint '%s': directory '%s': %s", ep, d,
		    strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		log_err("endpoint '%s': '%s' is not a directory", ep, d);
		return -1;
	}
	if (st.st_uid != geteuid()) {
		log_err("endpoint '%s': directory '%s' belongs to uid %u, not "
		    "to refd's user (uid %u); another user could replace the "
		    "socket: use a directory of refd's own", ep, d,
		    (unsigned)st.st_uid, (unsigned)geteuid());
		return -1;
	}
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
		log_err("endpoint '%s': directory '%s' is writable by %s (mode "
		    "%04o); another user could replace the socket: chmod "
		    "go-w it or use a directory of refd's own", ep, d,
		    (st.st_mode & S_IWOTH) ? "others" : "its group",
		    (unsigned)(st.st_mode & 07777));
		return -1;
	}
	return 0;
}

/* Create the directory of every ipc:// endpoint, and check it. */
static int
ipc_dirs(char *const *eps, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		char d[PATH_MAX];
		char *slash;

		if (strncmp(eps[i], "ipc://", 6) != 0)
			continue;
		snprintf(d, sizeof(d), "%s", eps[i] + 6);
		if ((slash = strrchr(d, '/')) == NULL || slash == d)
			continue;
		*slash = '\0';
		if (mkdirs(d, 0700) != 0) {
			log_err("endpoint '%s': cannot create directory '%s': %s",
			    eps[i], d, strerror(errno));
			return -1;
		}
		if (ipc_dir_safe(eps[i], d) != 0)
			return -1;
	}
	return 0;
}

static int
cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Load every plugin in the plugin directory with its content from
 * <ruleset-dir>/<name>.  A refused plugin is one log line; the others
 * load.  Returns the number refused.
 */
static int
load_plugins(const struct config *cfg, struct registry *reg)
{
	DIR *d = opendir(cfg->plugin_dir);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, i;
	int refused = 0;

	worker_set_limits(cfg->plugin_memory, cfg->plugin_cpu);
	reg->pl = NULL;
	reg->n = 0;
	if (d == NULL) {
		log_err("plugin-dir '%s': cannot read: %s", cfg->plugin_dir,
		    strerror(errno));
		return 1;
	}
	while ((de = readdir(d)) != NULL) {
		size_t l = strlen(de->d_name);
		char **nn;

		if (l < 4 || strcmp(de->d_name + l - 3, ".so") != 0)
			continue;
		if ((nn = realloc(names, (n + 1) * sizeof(*nn))) == NULL)
			break;
		names = nn;
		if ((names[n] = strdup(de->d_name)) == NULL)
			break;
		n++;
	}
	closedir(d);
	if (n > 0)
		qsort(names, n, sizeof(*names), cmpstr);
	reg->pl = calloc(n ? n : 1, sizeof(*reg->pl));
	for (i = 0; i < n; i++) {
		char path[PATH_MAX * 2], cdir[PATH_MAX * 2], err[1024];
		struct plugin *pl = NULL;
		struct stat st;
		int rc;

		snprintf(path, sizeof(path), "%s/%s", cfg->plugin_dir, names[i]);
		if (cfg->plugin_workers)
			rc = plugin_open_isolated(path, cfg->plugin_timeout, &pl,
			    err, sizeof(err));
		else
			rc = plugin_open(path, &pl, err, sizeof(err));
		if (rc != REFD_OK) {
			log_err("%s", err);
			refused++;
			continue;
		}
		snprintf(cdir, sizeof(cdir), "%s/%s", cfg->ruleset_dir, pl->name);
		if (stat(cdir, &st) != 0 || !S_ISDIR(st.st_mode)) {
			log_err("plugin '%s': no content directory '%s'; "
			    "install the ruleset's content or set ruleset-dir",
			    pl->name, cdir);
			plugin_close(pl);
			refused++;
			continue;
		}
		rc = plugin_load_content(pl, cdir, err, sizeof(err));
		if (rc != REFD_OK) {
			log_err("plugin '%s': %s", pl->name, err);
			plugin_close(pl);
			refused++;
			continue;
		}
		if (reg->pl == NULL) {
			plugin_close(pl);
			continue;
		}
		log_info("ruleset '%s' %s loaded (%zu scenarios)", pl->name,
		    pl->desc->version ? pl->desc->version : "?",
		    pl->nscenarios);
		reg->pl[reg->n++] = pl;
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return refused;
}

static void
unload_plugins(struct registry *reg)
{
	size_t i;

	for (i = 0; i < reg->n; i++)
		plugin_close(reg->pl[i]);
	free(reg->pl);
	reg->pl = NULL;
	reg->n = 0;
}

static void
report(void *arg, const char *line)
{
	(void)arg;
	log_info("%s", line);
}

static int
daemonize(void)
{
	pid_t pid = fork();
	int fd;

	if (pid < 0)
		return -1;
	if (pid > 0)
		_exit(0);
	if (setsid() < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid > 0)
		_exit(0);
	if (chdir("/") != 0)
		return -1;
	if ((fd = open("/dev/null", O_RDWR)) >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
	return 0;
}

static int
write_pidfile(const char *path)
{
	FILE *f = fopen(path, "w");

	if (f == NULL)
		return -1;
	fprintf(f, "%ld\n", (long)getpid());
	return fclose(f);
}

/*
 * refd -d: the detached refd keeps a supervisor.  It forks the serving
 * refd and waits: a refd that exits is not restarted (a clean stop, or a
 * setting refused at start), one killed by a signal (an assertion of the
 * transport library, a crash) is started again on the same state after a
 * pause, so that no acknowledged command is lost and clients reconnect.
 * SIGTERM, SIGINT and SIGHUP go to the serving refd.  Returns in the child.
 */
static volatile sig_atomic_t sup_child, sup_stop;

static void
sup_forward(int sig)
{
	if (sig != SIGHUP)
		sup_stop = 1;
	if (sup_child > 0)
		kill((pid_t)sup_child, sig);
}

static void
supervise(void)
{
	struct sigaction sa;
	time_t starts[5] = { 0 };
	int n = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sup_forward;
	sigemptyset(&sa.sa_mask);
	for (;;) {
		pid_t pid;
		int st;
		time_t now = time(NULL);

		if (n >= 5 && now - starts[n % 5] < 60) {
			log_err("refd died 5 times within a minute; the "
			    "supervisor gives up");
			_exit(1);
		}
		starts[n++ % 5] = now;
		pid = fork();
		if (pid < 0) {
			log_err("supervisor: cannot fork: %s", strerror(errno));
			_exit(1);
		}
		if (pid == 0) {
			sa.sa_handler = SIG_DFL;
			sigaction(SIGTERM, &sa, NULL);
			sigaction(SIGINT, &sa, NULL);
			sigaction(SIGHUP, &sa, NULL);
			return;
		}
		sup_child = pid;
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
		while (waitpid(pid, &st, 0) < 0)
			if (errno != EINTR)
				_exit(1);
		sup_child = 0;
		if (WIFEXITED(st) || sup_stop)
			_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 0);
		log_err("refd (pid %d) died of signal %d (%s); the supervisor "
		    "starts it again", (int)pid, WTERMSIG(st),
		    strsignal(WTERMSIG(st)));
		sleep(1);
	}
}

int
main(int argc, char **argv)
{
	struct config cfg;
	struct registry reg = { NULL, 0 };
	struct match_config mc;
	struct matchset *ms = NULL;
	struct server *srv = NULL;
	struct sigaction sa;
	const char *conf = NULL, *info = NULL;
	char err[1024];
	int test = 0, pubkey = 0, daemon_flag = 0, verbose = 0, i, rc = 1;
	char **ov_name, **ov_val;
	int nov = 0;

	/* The hidden modes of the same program: a publisher
	 * (publisher.h) or a plugin worker (worker.h), each a fresh image. */
	if (argc == 3 && strcmp(argv[1], "--publisher") == 0)
		return publisher_main(argv[2]);
	worker_main(argc, argv);
	if (sodium_init() < 0) {
		fprintf(stderr, "refd: libsodium failed to initialise\n");
		return 1;
	}
	ov_name = calloc((size_t)argc, sizeof(*ov_name));
	ov_val = calloc((size_t)argc, sizeof(*ov_val));
	if (ov_name == NULL || ov_val == NULL) {
		free(ov_name);
		free(ov_val);
		return 1;
	}
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "-f") == 0 || strcmp(a, "--config") == 0) {
			if (++i == argc) {
				fprintf(stderr, "refd: option '%s': missing "
				    "file\n", a);
				rc = 2;
				goto out_args;
			}
			conf = argv[i];
		} else if (strcmp(a, "-t") == 0) {
			test = 1;
		} else if (strcmp(a, "-d") == 0) {
			daemon_flag = 1;
		} else if (strcmp(a, "-v") == 0) {
			verbose = 1;
		} else if (strcmp(a, "-V") == 0 || strcmp(a, "--version") == 0) {
			printf("refd %s (protocol 1, plugin ABI %d.%d)\n",
			    REFD_VERSION, REFD_ABI_MAJOR, REFD_ABI_MINOR);
			rc = 0;
			goto out_args;
		} else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage(stdout);
			rc = 0;
			goto out_args;
		} else if (strcmp(a, "--plugin-info") == 0) {
			if (++i == argc) {
				fprintf(stderr, "refd: option '--plugin-info': "
				    "missing file\n");
				rc = 2;
				goto out_args;
			}
			info = argv[i];
		} else if (strcmp(a, "--print-pubkey") == 0) {
			pubkey = 1;
		} else if (strncmp(a, "--", 2) == 0) {
			char *eq = strchr(a + 2, '=');
			char *name;

			name = eq ? strndup(a + 2, (size_t)(eq - a - 2)) :
			    strdup(a + 2);
			if (name == NULL) {
				rc = 1;
				goto out_args;
			}
			if (!config_known(name)) {
				fprintf(stderr, "refd: unknown option '%s'\n", a);
				usage(stderr);
				free(name);
				rc = 2;
				goto out_args;
			}
			ov_name[nov] = name;
			if (eq != NULL) {
				ov_val[nov] = eq + 1;
			} else {
				if (++i == argc) {
					fprintf(stderr, "refd: option '%s': "
					    "missing value\n", a);
					rc = 2;
					goto out_args;
				}
				ov_val[nov] = argv[i];
			}
			nov++;
		} else {
			fprintf(stderr, "refd: unknown argument '%s'\n", a);
			usage(stderr);
			rc = 2;
			goto out_args;
		}
	}

	if (info != NULL) {
		struct buf out;

		buf_init(&out);
		rc = plugin_info(info, &out, err, sizeof(err));
		if (rc != REFD_OK) {
			fprintf(stderr, "refd: %s\n", err);
			buf_release(&out);
			rc = 1;
			goto out_args;
		}
		fwrite(out.data, 1, out.len, stdout);
		rc = strstr((char *)out.data, "loadable: yes") != NULL ? 0 : 1;
		buf_release(&out);
		goto out_args;
	}

	if (config_init(&cfg, err, sizeof(err)) != 0) {
		fprintf(stderr, "refd: %s\n", err);
		rc = 1;
		goto out_args;
	}
	if (conf == NULL)
		conf = getenv("REFD_CONF");
	if (conf != NULL && config_load(&cfg, conf, err, sizeof(err)) != 0) {
		fprintf(stderr, "refd: %s\n", err);
		goto out_cfg;
	}
	config_layer(&cfg);
	for (i = 0; i < nov; i++) {
		if (config_set(&cfg, ov_name[i], ov_val[i], err,
		    sizeof(err)) != 0) {
			fprintf(stderr, "refd: command line: %s\n", err);
			goto out_cfg;
		}
	}
	if (daemon_flag)
		cfg.daemonize = 1;
	if (verbose)
		cfg.verbose = 1;
	if (test || pubkey)
		cfg.daemonize = 0;
	log_init(0, cfg.verbose);

	if (test) {
		int refused = load_plugins(&cfg, &reg);

		if (cfg.verbose) {
			config_dump(&cfg, stdout);
			config_memory(&cfg, stdout);
		}
		if (refused > 0 || reg.n == 0) {
			fprintf(stderr, "refd: configuration%s%s%s: %d plugin(s) "
			    "refused, %zu loaded\n", conf ? " '" : "",
			    conf ? conf : "", conf ? "'" : "", refused, reg.n);
			rc = 1;
		} else {
			printf("refd: configuration%s%s%s is ok: %zu ruleset(s)\n",
			    conf ? " '" : "", conf ? conf : "", conf ? "'" : "",
			    reg.n);
			rc = 0;
		}
		unload_plugins(&reg);
		goto out_cfg;
	}

	if (mkdirs(cfg.state_dir, 0700) != 0) {
		log_err("state-dir '%s': cannot create: %s", cfg.state_dir,
		    strerror(errno));
		goto out_cfg;
	}
	if (pubkey) {
		uint8_t pk[32];
		char hex[65];

		if (matchset_read_pubkey(cfg.state_dir, pk, err,
		    sizeof(err)) != 0) {
			log_err("%s", err);
			goto out_cfg;
		}
		hex_encode(pk, sizeof(pk), hex);
		printf("%s\n", hex);
		rc = 0;
		goto out_cfg;
	}

	if (ipc_dirs(cfg.listen, cfg.nlisten) != 0 ||
	    ipc_dirs(cfg.publish, cfg.npublish) != 0)
		goto out_cfg;
	/* Fork before nanomsg starts its threads and before the plugins'
	 * workers start: the supervisor keeps none of them. */
	if (cfg.daemonize) {
		if (daemonize() != 0) {
			log_err("cannot detach: %s", strerror(errno));
			goto out_cfg;
		}
		log_release();
		log_init(1, cfg.verbose);
		if (cfg.pid_file != NULL && write_pidfile(cfg.pid_file) != 0)
			log_warn("pid-file '%s': cannot write: %s",
			    cfg.pid_file, strerror(errno));
		if (getenv("NOTIFY_SOCKET") == NULL &&
		    getenv("REFD_NO_SUPERVISOR") == NULL)
			supervise();
	} else if (cfg.pid_file != NULL && write_pidfile(cfg.pid_file) != 0) {
		log_warn("pid-file '%s': cannot write: %s", cfg.pid_file,
		    strerror(errno));
	}
	load_plugins(&cfg, &reg);
	if (reg.n == 0)
		log_warn("no ruleset loaded from '%s'; refd serves no games",
		    cfg.plugin_dir);
	/*
	 * Bind first: a second refd on the same endpoints fails here,
	 * before it touches the state directory.
	 */
	if (server_create(&cfg, &reg, NULL, &srv, err, sizeof(err)) != 0) {
		log_err("%s", err);
		goto out_reg;
	}
	config_match(&cfg, &mc);
	if (matchset_create(&mc, &reg, report, NULL, &ms, err,
	    sizeof(err)) != 0) {
		log_err("%s", err);
		goto out_srv;
	}
	server_attach(srv, ms);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	log_info("refd %s ready: %zu ruleset(s), %zu match(es), state in '%s'",
	    REFD_VERSION, reg.n, matchset_count(ms), cfg.state_dir);
	rc = server_run(srv, &stop_flag) == 0 ? 0 : 1;
	server_destroy(srv);
	srv = NULL;
	matchset_destroy(ms);
	log_info("stopped");
out_srv:
	server_destroy(srv);
out_reg:
	unload_plugins(&reg);
	if (cfg.pid_file != NULL)
		unlink(cfg.pid_file);
out_cfg:
	config_release(&cfg);
out_args:
	for (i = 0; i < nov; i++)
		free(ov_name[i]);
	free(ov_name);
	free(ov_val);
	log_release();
	return rc;
}
