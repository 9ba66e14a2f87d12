/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_topo_check.c - a topology file is parsed by a checker process
 * before this one: files hwloc aborts on give a message, not a dead
 * process; the verdict store is asked and told the right keys; the loader
 * leaves the environment alone.
 *
 * Expectations come from hwloc's own tools: lstopo-no-graphics --input
 * dies by SIGABRT (hwloc_bitmap_sscanf: Assertion `count > 0') on
 * tests/xml/crash-pu-complete-nodeset.xml, and loads the commented file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "plan_helpers.h"

#define CRASHER "crash-pu-complete-nodeset.xml"

static const char *xml_path(const char *file)
{
	static char buf[4096];
	const char *d = getenv("NP_XMLDIR");

	snprintf(buf, sizeof(buf), "%s/%s", d && *d ? d : NP_XMLDIR, file);
	return buf;
}

/* no checker left behind, running or zombie */
static void assert_no_children(void)
{
	errno = 0;
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
}

static void test_crash_is_a_message(void **state)
{
	np_load_opts_t lo = { .xml_path = xml_path(CRASHER) };
	np_error_t err = { 0 };
	np_topo_t *t = (np_topo_t *)0x1;

	(void)state;
	assert_int_equal(np_topo_load(&t, &lo, &err), -EINVAL);
	assert_null(t);
	assert_non_null(strstr(err.msg, xml_path(CRASHER)));
	assert_non_null(strstr(err.msg, "crashed"));
	assert_non_null(strstr(err.msg, "signal 6, SIGABRT"));
	assert_non_null(strstr(err.msg, "hwloc_bitmap_sscanf"));
	/* one line: it goes to a log */
	assert_null(strchr(err.msg, '\n'));
	assert_no_children();
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	*len = (size_t)ftell(f);
	rewind(f);
	buf = malloc(*len + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, *len, f), *len);
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

/* tests/topologies/FILE with a comment after the XML declaration */
static void write_commented(const char *file, char *tmpl)
{
	size_t len;
	char *orig = slurp(topo_path(file), &len), *body = strchr(orig, '\n');
	int fd = mkstemps(tmpl, 4);
	FILE *f;

	assert_true(fd >= 0);
	assert_non_null(body);
	f = fdopen(fd, "w");
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	        "<!-- node type A, exported by the site's admin -->%s", body);
	fclose(f);
	free(orig);
}

static void test_comment_loads(void **state)
{
	char path[] = "/tmp/np-comment-XXXXXX.xml";
	np_load_opts_t lo = { .xml_path = path };
	np_error_t err = { 0 };
	np_topo_t *t, *ref = load_topo(SPR8480, NULL);

	(void)state;
	write_commented(SPR8480, path);
	assert_int_equal(np_topo_load(&t, &lo, &err), 0);
	assert_true(t->xml_check == NP_XML_CHECKED || t->xml_check == NP_XML_CONVERTED);
	assert_int_equal(t->npackages, ref->npackages);
	assert_int_equal(t->nnuma, ref->nnuma);
	assert_int_equal(t->ncores, ref->ncores);
	assert_int_equal(t->npus, ref->npus);
	assert_int_equal(t->ndevices, ref->ndevices);
	assert_string_equal(t->hostname, ref->hostname);
	np_topo_free(t);
	np_topo_free(ref);
	unlink(path);
	assert_no_children();
}

static void test_refused_names_hwloc_reason(void **state)
{
	char path[] = "/tmp/np-bogus-XXXXXX";
	np_load_opts_t lo = { .xml_path = path };
	np_error_t err = { 0 };
	np_topo_t *t;
	int fd = mkstemp(path);
	const char *xml = "<?xml version=\"1.0\"?>\n<topology version=\"2.0\"><object type=\"Machine\" "
	                  "os_index=\"0\" cpuset=\"0x1\" complete_cpuset=\"0x1\" nodeset=\"0x1\" "
	                  "complete_nodeset=\"0x1\"><bogus/></object></topology>\n";

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, xml, strlen(xml)), (ssize_t)strlen(xml));
	close(fd);
	assert_int_equal(np_topo_load(&t, &lo, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "hwloc rejected it"));
	assert_non_null(strstr(err.msg, "bogus"));
	assert_non_null(strstr(err.msg, path));
	unlink(path);
	assert_no_children();
}

static void test_from_descriptor(void **state)
{
	char path[] = "/tmp/np-fd-XXXXXX.xml";
	np_load_opts_t lo = { .xml_path = "label.xml", .flags = NP_LOAD_XML_FD };
	np_error_t err = { 0 };
	size_t len;
	char *bytes = slurp(topo_path(EPYC7551), &len);
	np_topo_t *t;
	int fd = mkstemps(path, 4);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, bytes, len), (ssize_t)len);
	/* the descriptor is read from its start, wherever it stands; the
	 * name is gone by then: what is loaded is what the descriptor holds */
	unlink(path);
	lo.xml_fd = fd;
	assert_int_equal(np_topo_load(&t, &lo, &err), 0);
	assert_string_equal(t->source, "label.xml");
	assert_int_equal(t->ncores, 64);
	/* left open for the caller */
	assert_true(fcntl(fd, F_GETFD) >= 0);
	np_topo_free(t);
	close(fd);
	free(bytes);
}

/* An in-memory verdict store that records what it is asked and told. */
struct store {
	char keys[4][NP_XML_KEY_MAX];
	unsigned nkeys, asked, told;
	char last_asked[NP_XML_KEY_MAX];
};

static int st_known(void *ctx, const char *key)
{
	struct store *s = ctx;

	s->asked++;
	snprintf(s->last_asked, sizeof(s->last_asked), "%s", key);
	for (unsigned i = 0; i < s->nkeys; i++)
		if (!strcmp(s->keys[i], key))
			return 1;
	return 0;
}

static void st_remember(void *ctx, const char *key)
{
	struct store *s = ctx;

	s->told++;
	if (s->nkeys < 4)
		snprintf(s->keys[s->nkeys++], NP_XML_KEY_MAX, "%s", key);
}

static void test_trust_store(void **state)
{
	struct store s = { 0 };
	np_xml_trust_t trust = { st_known, st_remember, &s };
	np_load_opts_t lo = { .xml_path = topo_path(EPYC7551), .trust = &trust };
	char path[] = "/tmp/np-fresh-XXXXXX.xml", want[64];
	np_error_t err = { 0 };
	struct stat st;
	size_t len;
	char *bytes;
	np_topo_t *t;
	int fd;

	(void)state;
	/* a verdict is kept only for a file that has not changed for 2 s */
	assert_int_equal(stat(lo.xml_path, &st), 0);
	if (time(NULL) - (st.st_ctime > st.st_mtime ? st.st_ctime : st.st_mtime) < 3)
		sleep(3);
	assert_int_equal(np_topo_load(&t, &lo, &err), 0);
	assert_int_equal(t->xml_check, NP_XML_CHECKED);
	assert_int_equal(s.asked, 1);
	assert_int_equal(s.told, 1);
	/* the key names this file: its inode and size */
	snprintf(want, sizeof(want), " ino-%llu size-%lld ", (unsigned long long)st.st_ino,
	         (long long)st.st_size);
	assert_non_null(strstr(s.keys[0], want));
	assert_true(strlen(s.keys[0]) < NP_XML_KEY_MAX - 1);
	np_topo_free(t);

	/* known: not checked again, not told again */
	assert_int_equal(np_topo_load(&t, &lo, &err), 0);
	assert_int_equal(t->xml_check, NP_XML_KNOWN);
	assert_int_equal(s.asked, 2);
	assert_int_equal(s.told, 1);
	np_topo_free(t);

	/* another hwloc configuration is another key */
	setenv("HWLOC_PLUGINS_BLACKLIST", "hwloc_gl", 1);
	assert_int_equal(np_topo_load(&t, &lo, &err), 0);
	unsetenv("HWLOC_PLUGINS_BLACKLIST");
	assert_int_equal(t->xml_check, NP_XML_CHECKED);
	assert_string_not_equal(s.last_asked, s.keys[0]);
	np_topo_free(t);

	/* the same bytes in a file written just now: checked, and not
	 * remembered (it could change again within the same timestamp) */
	bytes = slurp(topo_path(EPYC7551), &len);
	fd = mkstemps(path, 4);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, bytes, len), (ssize_t)len);
	close(fd);
	free(bytes);
	s.told = 0;
	lo.xml_path = path;
	assert_int_equal(np_topo_load(&t, &lo, &err), 0);
	assert_int_equal(t->xml_check, NP_XML_CHECKED);
	assert_int_equal(s.told, 0);
	np_topo_free(t);
	unlink(path);

	/* a file that crashes the checker is never remembered */
	s.told = 0;
	lo.xml_path = xml_path(CRASHER);
	assert_int_equal(np_topo_load(&t, &lo, &err), -EINVAL);
	assert_int_equal(s.told, 0);
	assert_no_children();
}

static void test_timeout_kills_and_reaps(void **state)
{
	np_load_opts_t lo = { .xml_path = topo_path("sgi-uv2000-24s-24numa-mlx4.xml"),
	                      .check_timeout_ms = 1 };
	np_error_t err = { 0 };
	np_topo_t *t;

	(void)state;
	/* no exec and hwloc load finishes in 1 ms */
	assert_int_equal(np_topo_load(&t, &lo, &err), -ETIMEDOUT);
	assert_non_null(strstr(err.msg, "within 1 ms"));
	assert_non_null(strstr(err.msg, "sgi-uv2000"));
	assert_no_children();
}

static void test_unusable_indexes(void **state)
{
	char path[] = "/tmp/np-index-XXXXXX";
	np_load_opts_t lo = { .xml_path = path };
	np_error_t err = { 0 };
	np_topo_t *t;
	int fd = mkstemp(path);
	/* hwloc loads it (lstopo shows PU P#2000000); bitmaps of 2^21 bits */
	const char *o = "cpuset=\"0x00000003\" complete_cpuset=\"0x00000003\" nodeset=\"0x1\" "
	                "complete_nodeset=\"0x1\"";
	char xml[2048];

	snprintf(xml, sizeof(xml), "<?xml version=\"1.0\"?>\n<topology version=\"2.0\">"
	         "<object type=\"Machine\" os_index=\"0\" %s>"
	         "<object type=\"NUMANode\" os_index=\"0\" %s/>"
	         "<object type=\"Core\" os_index=\"0\" cpuset=\"0x1\" complete_cpuset=\"0x1\">"
	         "<object type=\"PU\" os_index=\"0\" cpuset=\"0x1\" complete_cpuset=\"0x1\"/></object>"
	         "<object type=\"Core\" os_index=\"1\" cpuset=\"0x2\" complete_cpuset=\"0x2\">"
	         "<object type=\"PU\" os_index=\"2000000\" cpuset=\"0x2\" complete_cpuset=\"0x2\"/>"
	         "</object></object></topology>\n", o, o);
	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, xml, strlen(xml)), (ssize_t)strlen(xml));
	close(fd);
	assert_int_equal(np_topo_load(&t, &lo, &err), -ERANGE);
	assert_non_null(strstr(err.msg, path));
	assert_non_null(strstr(err.msg, "past"));
	unlink(path);
	assert_no_children();
}

/*
 * Files hwloc (and lstopo) load whose tree no machine has
 * (tests/xml/make-shape-xmls.sh says each file's edit, which is where the
 * expected reason comes from).  Before the shape check, the first made
 * np_pool_init write past its package counts; the second allocated
 * 4294967296 PUs per core and ended in "no usable core".
 */
static const char *const shape_files[][2] = {
	{ "shape-package-two-depths.xml", "Package objects sit at more than one depth" },
	{ "shape-core-as-pu.xml", "PU objects sit at more than one depth" },
	{ "shape-l3-two-depths.xml", "L3Cache objects sit at more than one depth" },
	{ "shape-pu-index-permuted.xml", "PU L#0 (P#3) has a cpuset other than its own OS index" },
};

static void test_shape_refused(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(shape_files) / sizeof(shape_files[0]); i++)
		for (int whole = 0; whole < 2; whole++) {
			char path[4096];
			np_load_opts_t lo = { .xml_path = path, .flags = whole ? NP_LOAD_WHOLE_MACHINE : 0 };
			np_error_t err = { 0 };
			np_topo_t *t = (np_topo_t *)&lo;

			snprintf(path, sizeof(path), "%s", xml_path(shape_files[i][0]));
			assert_int_equal(np_topo_load(&t, &lo, &err), -ERANGE);
			assert_null(t);
			assert_non_null(strstr(err.msg, path));
			assert_non_null(strstr(err.msg, "a shape no machine has: "));
			assert_non_null(strstr(err.msg, shape_files[i][1]));
			assert_null(strstr(err.msg, "no usable core"));
		}
	assert_no_children();
}

static int st_always(void *ctx, const char *key)
{
	(void)key;
	((struct store *)ctx)->asked++;
	return 1;
}

/* A trust store's verdict skips the checker, not the shape check: the
 * load itself refuses the file.  A refused file is never remembered. */
static void test_shape_refused_when_trusted(void **state)
{
	struct store s = { 0 };
	np_xml_trust_t vouch = { st_always, st_remember, &s }, trust = { st_known, st_remember, &s };
	char path[4096];
	np_load_opts_t lo = { .xml_path = path, .trust = &vouch };
	np_error_t err = { 0 };
	np_topo_t *t;

	(void)state;
	snprintf(path, sizeof(path), "%s", xml_path(shape_files[0][0]));
	assert_int_equal(np_topo_load(&t, &lo, &err), -ERANGE);
	assert_int_equal(s.asked, 1);
	assert_non_null(strstr(err.msg, shape_files[0][1]));
	lo.trust = &trust;
	for (size_t i = 0; i < sizeof(shape_files) / sizeof(shape_files[0]); i++) {
		snprintf(path, sizeof(path), "%s", xml_path(shape_files[i][0]));
		assert_int_equal(np_topo_load(&t, &lo, &err), -ERANGE);
	}
	assert_int_equal(s.told, 0);
	assert_no_children();
}

/* every HWLOC_* entry of the environment, as one string */
static char *hwloc_env(void)
{
	extern char **environ;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	for (char **e = environ; *e; e++)
		if (!strncmp(*e, "HWLOC_", 6))
			fprintf(f, "%s\n", *e);
	fclose(f);
	return buf;
}

static void test_environment_untouched(void **state)
{
	char *before = hwloc_env(), *after;
	np_topo_t *t = load_topo(EPYC7551, NULL), *u;
	np_load_opts_t lo = { 0 };
	np_error_t err = { 0 };

	(void)state;
	assert_int_equal(np_topo_load(&u, &lo, &err), 0);
	after = hwloc_env();
	assert_string_equal(before, after);
	np_topo_free(t);
	np_topo_free(u);
	free(before);
	free(after);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crash_is_a_message),
		cmocka_unit_test(test_comment_loads),
		cmocka_unit_test(test_refused_names_hwloc_reason),
		cmocka_unit_test(test_from_descriptor),
		cmocka_unit_test(test_trust_store),
		cmocka_unit_test(test_timeout_kills_and_reaps),
		cmocka_unit_test(test_unusable_indexes),
		cmocka_unit_test(test_shape_refused),
		cmocka_unit_test(test_shape_refused_when_trusted),
		cmocka_unit_test(test_environment_untouched),
	};

	return cmocka_run_group_tests_name("topo_check", tests, NULL, NULL);
}
