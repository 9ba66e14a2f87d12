/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * topo_xml_check.c - letting another process read a topology file first.
 *
 * hwloc 2.9 aborts (failed assertions) or crashes on some malformed XML.
 * Before this process parses a file, numaplan-topo-check (topo_check_main.c)
 * loads the very same bytes with the same hwloc settings and environment;
 * only when it succeeds does this process load them.  A file that kills
 * the checker costs a message naming the signal, and a checker that does
 * not finish is killed after a timeout and reaped.
 *
 * Why spawn a program rather than fork and load in the child: the plugin
 * runs inside slurmstepd, a multi-threaded root process.  After a fork
 * there, only async-signal-safe calls are allowed in the child.  glibc
 * repairs malloc's locks in a forked child, but hwloc's component setup
 * takes a pthread mutex and may dlopen its plugins, libxml2 sets up global
 * state under locks of its own, and changing HWLOC_* variables means
 * setenv and its lock: any of those may have been held by another thread
 * at the fork, and the child would deadlock (and the timeout would fail a
 * good file).  hwloc also fixes its XML importer in a static variable at
 * its first use, so a forked child inherits the parent's choice and could
 * not try libxml2 after the minimalistic parser failed.  A spawned program
 * starts clean: its environment is an argument (no setenv anywhere) and
 * its importer choice is its own.  posix_spawn does it without running
 * atfork handlers or copying the page tables (glibc uses a vfork-like
 * clone), the safe way to start a process from a threaded one.  The price
 * is an exec, about 1.5 ms, on a file's first load: np_xml_trust_t lets
 * later loads of an unchanged file skip it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sysread/kfile.h"
#include "topo_internal.h"

extern char **environ;

/* The re-export of a file only libxml2 reads may be larger than the file */
#define NP_XML_MAX_EXPORT (256u << 20)
#define DIAG_KEEP 4096

const char *np_xml_checker_path(void)
{
	Dl_info di;
	char self[4096];
	const char *me = NULL;

	/* A build tree's library (tests, the vcluster) runs the build tree's
	 * checker; an installed one runs the installed checker.  Both paths
	 * are fixed when the library is built: nothing at run time names
	 * the program a root process executes. */
	if (dladdr((void *)np_xml_checker_path, &di) && di.dli_fname && di.dli_fname[0] == '/') {
		me = di.dli_fname;
	} else if (np_kfile_readlink_at(AT_FDCWD, "/proc/self/exe", self, sizeof(self)) == 0) {
		/* linked into the main program: dladdr gives its argv[0] */
		me = self;
	}
	if (me && !strncmp(me, NP_BUILD_ROOT, strlen(NP_BUILD_ROOT)))
		return NP_CHECKER_BUILD;
	return NP_CHECKER_INSTALLED;
}

/* What one run of the checker did. */
struct run {
	bool timed_out;
	int status;                 /* waitpid status unless timed_out */
	char head[DIAG_KEEP + 1];   /* the start of its standard error */
	size_t nhead;
	char tail[DIAG_KEEP + 1];   /* and the end */
	size_t ntail;
	char *out;                  /* its standard output (--export) */
	size_t nout;
};

static void keep_diag(struct run *r, const char *b, size_t n)
{
	size_t h = n < DIAG_KEEP - r->nhead ? n : DIAG_KEEP - r->nhead;

	memcpy(r->head + r->nhead, b, h);
	r->nhead += h;
	if (n >= DIAG_KEEP) {
		memcpy(r->tail, b + n - DIAG_KEEP, DIAG_KEEP);
		r->ntail = DIAG_KEEP;
	} else {
		if (r->ntail + n > DIAG_KEEP) {
			size_t drop = r->ntail + n - DIAG_KEEP;

			memmove(r->tail, r->tail + drop, r->ntail - drop);
			r->ntail -= drop;
		}
		memcpy(r->tail + r->ntail, b, n);
		r->ntail += n;
	}
}

/* A descriptor of ours must not be 0, 1 or 2, which the file actions
 * below replace in the child. */
static int above_stdio(int fd)
{
	int d;

	if (fd < 0 || fd > 2)
		return fd;
	d = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	return d;
}

static int memfd_with(const char *buf, size_t len)
{
	int fd = above_stdio(memfd_create("numaplan-topology", MFD_CLOEXEC));
	size_t done = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	while (done < len && (n = write(fd, buf + done, len - done)) > 0)
		done += (size_t)n;
	if (done < len || lseek(fd, 0, SEEK_SET) < 0) {
		int e = errno ? errno : EIO;

		close(fd);
		return -e;
	}
	return fd;
}

static long ms_left(const struct timespec *deadline)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (deadline->tv_sec - now.tv_sec) * 1000 + (deadline->tv_nsec - now.tv_nsec) / 1000000;
}

/* Read its standard error until it closes it (it exited) or time runs out. */
static void collect(struct run *r, int errfd, unsigned timeout_ms)
{
	struct timespec deadline;
	char chunk[4096];

	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += timeout_ms / 1000;
	deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
	if (deadline.tv_nsec >= 1000000000) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000;
	}
	for (;;) {
		struct pollfd p = { .fd = errfd, .events = POLLIN };
		long left = ms_left(&deadline);
		ssize_t n;
		int k;

		if (left <= 0) {
			r->timed_out = true;
			return;
		}
		k = poll(&p, 1, (int)(left > 60000 ? 60000 : left));
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return;
		if (k == 0)
			continue;
		n = read(errfd, chunk, sizeof(chunk));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return;
		keep_diag(r, chunk, (size_t)n);
	}
}

static int reap(pid_t pid, struct run *r)
{
	pid_t w;

	/* its stderr may stay open elsewhere (a descriptor inherited by a
	 * process another thread forked meanwhile): exited is exited */
	if (r->timed_out && waitpid(pid, &r->status, WNOHANG) == pid) {
		r->timed_out = false;
		return 0;
	}
	if (r->timed_out)
		kill(pid, SIGKILL);
	while ((w = waitpid(pid, &r->status, 0)) < 0 && errno == EINTR)
		;
	return w == pid ? 0 : -errno;
}

static int read_out(int fd, struct run *r)
{
	struct stat st;
	ssize_t n = 0;
	size_t got = 0;

	if (fstat(fd, &st) < 0)
		return -errno;
	if ((unsigned long long)st.st_size > NP_XML_MAX_EXPORT)
		return -EFBIG;
	if (!(r->out = malloc((size_t)st.st_size + 1)))
		return -ENOMEM;
	while (got < (size_t)st.st_size &&
	       (n = pread(fd, r->out + got, (size_t)st.st_size - got, (off_t)got)) > 0)
		got += (size_t)n;
	if (n < 0)
		return -errno;
	r->out[got] = '\0';
	r->nout = got;
	return 0;
}

/*
 * One run of the checker on buf (len bytes, the NUL included) with the
 * environment envp; 0 when it ran (r says how it ended), else why it
 * could not be run.
 */
static int run_checker(char *const envp[], const char *buf, size_t len, unsigned flags,
                       bool export, unsigned timeout_ms, struct run *r)
{
	const char *checker = np_xml_checker_path();
	char *argv[4];
	int argc = 0, in = -1, out = -1, errp[2] = { -1, -1 }, rc = 0;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t all, none;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	argv[argc++] = (char *)"numaplan-topo-check";
	if (flags & NP_LOAD_WHOLE_MACHINE)
		argv[argc++] = (char *)"--whole-machine";
	if (export)
		argv[argc++] = (char *)"--export";
	argv[argc] = NULL;

	/* the bytes, not the file: what is checked is what this process
	 * loads, whatever happens to the file meanwhile */
	if ((in = memfd_with(buf, len - 1)) < 0)
		return in;
	if (export && (out = above_stdio(memfd_create("numaplan-export", MFD_CLOEXEC))) < 0) {
		rc = -errno;
		goto out;
	}
	if (pipe2(errp, O_CLOEXEC) < 0 || (errp[0] = above_stdio(errp[0])) < 0 ||
	    (errp[1] = above_stdio(errp[1])) < 0) {
		rc = -errno;
		goto out;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in, 0);
	if (export)
		posix_spawn_file_actions_adddup2(&fa, out, 1);
	else
		posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, errp[1], 2);
	/* nothing else of the caller's (slurmstepd's sockets) reaches it */
	posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	/* signals as a new program expects them, whatever the caller blocks
	 * or ignores */
	sigfillset(&all);
	sigemptyset(&none);
	posix_spawnattr_init(&at);
	posix_spawnattr_setsigdefault(&at, &all);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
	rc = -posix_spawn(&pid, checker, &fa, &at, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(errp[1]);
	errp[1] = -1;
	if (rc < 0)
		goto out;
	collect(r, errp[0], timeout_ms);
	if ((rc = reap(pid, r)) < 0)
		goto out;
	if (export && !r->timed_out && WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0)
		rc = read_out(out, r);
out:
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	if (errp[0] >= 0)
		close(errp[0]);
	if (errp[1] >= 0)
		close(errp[1]);
	return rc;
}

/* hwloc's lines that say nothing about this file */
static bool noise(const char *line, size_t n)
{
	static const char *const skip[] = {
		"Loading XML topology without DTD",
		"XML component discovery failed.",
		"Failed to parse XML input with the minimalistic parser",
		"generated by hwloc, try enabling full XML support",
		"hwloc_topology_load() failed",
	};

	for (size_t i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
		if (n >= strlen(skip[i]) && !strncmp(line, skip[i], strlen(skip[i])))
			return true;
	return n == 0;
}

/*
 * One line of the checker's standard error for a message: the first that
 * says something (why hwloc refused), or the last (a failed assertion
 * just before an abort).  Prefixes dropped, control bytes replaced: the
 * line may end up in slurmd's log.
 */
static void pick_line(const char *text, size_t len, bool last, char *dst, size_t dstlen)
{
	static const char *const prefixes[] = { "numaplan-topo-check: ", "xmlbuffer: " };
	const char *best = NULL;
	size_t bestn = 0, o = 0;

	for (const char *p = text, *end = text + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *l = p;

		for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
			if (n >= strlen(prefixes[i]) && !strncmp(l, prefixes[i], strlen(prefixes[i]))) {
				n -= strlen(prefixes[i]);
				l += strlen(prefixes[i]);
			}
		if (!noise(l, n)) {
			best = l;
			bestn = n;
			if (!last)
				break;
		}
		p += (nl ? (size_t)(nl - p) + 1 : (size_t)(end - p));
	}
	for (size_t i = 0; best && i < bestn && o + 4 < dstlen && o < 200; i++) {
		unsigned char c = (unsigned char)best[i];

		dst[o++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
	dst[o] = '\0';
}

static bool ok(const struct run *r)
{
	return !r->timed_out && WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0;
}

static bool refused(const struct run *r)
{
	return !r->timed_out && WIFEXITED(r->status) && WEXITSTATUS(r->status) == 1;
}

/* Why a run failed, as a message about the file. */
static int failure(const char *name, const struct run *r, unsigned timeout_ms, np_error_t *err)
{
	char diag[256];

	if (r->timed_out)
		return np_error_set(err, -ETIMEDOUT, "cannot load topology file '%s': hwloc did not "
		                    "finish reading it within %u ms (the checking process was killed)",
		                    name, timeout_ms);
	if (WIFSIGNALED(r->status)) {
		int sig = WTERMSIG(r->status);
		const char *abbrev = sigabbrev_np(sig);

		pick_line(r->tail, r->ntail, true, diag, sizeof(diag));
		return np_error_set(err, -EINVAL, "cannot load topology file '%s': hwloc crashed "
		                    "reading it (the checking process was killed by signal %d, SIG%s)%s%s",
		                    name, sig, abbrev ? abbrev : "?", diag[0] ? ": " : "", diag);
	}
	if (!r->timed_out && WIFEXITED(r->status) && WEXITSTATUS(r->status) == 3) {
		/* the checker's own reason, after whatever hwloc said */
		pick_line(r->tail, r->ntail, true, diag, sizeof(diag));
		return np_error_set(err, -ERANGE, "cannot use topology '%s': %s", name, diag);
	}
	pick_line(r->head, r->nhead, false, diag, sizeof(diag));
	if (refused(r))
		return np_error_set(err, -EINVAL, "cannot load topology file '%s': hwloc rejected it "
		                    "(invalid or unsupported hwloc XML)%s%s", name,
		                    diag[0] ? ": " : "", diag);
	return np_error_set(err, -EIO, "cannot check topology file '%s': %s exited with status %d%s%s",
	                    name, np_xml_checker_path(), WEXITSTATUS(r->status),
	                    diag[0] ? ": " : "", diag);
}

/* This process's environment for the libxml2 importer: the importer and
 * plugin settings replaced, the rest as it is. */
static char **libxml_env(void)
{
	static const char *const drop[] = {
		"HWLOC_LIBXML=", "HWLOC_LIBXML_IMPORT=", "HWLOC_LIBXML_EXPORT=", "HWLOC_PLUGINS_BLACKLIST=",
	};
	static const char *const add[] = {
		"HWLOC_LIBXML_IMPORT=1",
		/* the re-export is read by this process's importer, whichever
		 * it is: hwloc's own writer suits them all */
		"HWLOC_LIBXML_EXPORT=0",
		"HWLOC_PLUGINS_BLACKLIST=hwloc_gl,hwloc_opencl",
	};
	size_t n = 0, k = 0;
	char **v;

	for (char **e = environ; e && *e; e++)
		n++;
	if (!(v = calloc(n + 4, sizeof(char *))))
		return NULL;
	for (char **e = environ; e && *e; e++) {
		bool keep = true;

		for (size_t i = 0; i < sizeof(drop) / sizeof(drop[0]); i++)
			keep &= strncmp(*e, drop[i], strlen(drop[i])) != 0;
		if (keep)
			v[k++] = *e;
	}
	for (size_t i = 0; i < sizeof(add) / sizeof(add[0]); i++)
		v[k++] = (char *)add[i];
	return v;
}

int np_xml_check(const char *name, np_xml_bytes_t *x, unsigned flags, unsigned timeout_ms,
                 np_error_t *err)
{
	struct run a, b, c;
	char **env;
	int rc;

	/* As this process would load it: same environment, same settings. */
	if ((rc = run_checker(environ, x->buf, x->len, flags, false, timeout_ms, &a)) < 0)
		return np_error_set(err, rc == -ENOMEM ? rc : -EIO, "cannot check topology file '%s': "
		                    "cannot run %s: %s", name, np_xml_checker_path(), strerror(-rc));
	if (ok(&a)) {
		x->how = NP_XML_CHECKED;
		return 0;
	}
	if (!refused(&a))
		return failure(name, &a, timeout_ms, err);

	/* Refused: lstopo would have used libxml2, which reads what the
	 * minimalistic parser cannot (comments, entities...).  This
	 * process's importer may be the minimalistic one and is fixed for
	 * its lifetime, so it loads hwloc's re-export instead, after a third
	 * run has loaded that as this process will. */
	if (!(env = libxml_env()))
		return np_error_set(err, -ENOMEM, "out of memory");
	rc = run_checker(env, x->buf, x->len, flags, true, timeout_ms, &b);
	free(env);
	if (rc < 0 || !ok(&b) || b.nout == 0) {
		bool loaded = rc == 0 && !b.timed_out && WIFEXITED(b.status) && WEXITSTATUS(b.status) == 3;

		free(b.out);
		/* libxml2 read it, and found what the planner cannot use */
		return failure(name, loaded ? &b : &a, timeout_ms, err);
	}
	rc = run_checker(environ, b.out, b.nout + 1, flags, false, timeout_ms, &c);
	if (rc < 0 || !ok(&c)) {
		free(b.out);
		if (rc < 0)
			return np_error_set(err, -EIO, "cannot check topology file '%s': cannot run %s: %s",
			                    name, np_xml_checker_path(), strerror(-rc));
		return failure(name, &c, timeout_ms, err);
	}
	free(x->buf);
	x->buf = b.out;
	x->len = b.nout + 1;
	x->how = NP_XML_CONVERTED;
	return 0;
}
