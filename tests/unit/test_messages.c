/* SPDX-License-Identifier: BSD-3-Clause */
/* test_messages.c - text from users and files on its way out: np_escape
 * (every message path) and np_host_name_ok (launcher lines). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <numaplan.h>
#include "common/escape.h"

static void escaped(const char *in, const char *want)
{
	char out[NP_ESCAPED_SIZE(64)];

	assert_true(strlen(in) <= 64);
	assert_string_equal(np_escape(out, sizeof(out), in), want);
}

static void test_escape_controls(void **state)
{
	(void)state;
	escaped("plain text: a-b_c.d/e=f,g+h", "plain text: a-b_c.d/e=f,g+h");
	escaped("", "");
	/* a newline would start a forged log line */
	escaped("compact\nerror: forged", "compact\\nerror: forged");
	escaped("a\tb\rc", "a\\tb\\rc");
	/* a terminal escape sequence, DEL, a C1 byte (UTF-8 of U+009B) */
	escaped("\033[31mred\177", "\\x1b[31mred\\x7f");
	escaped("\302\233", "\\xc2\\x9b");
	/* the backslash itself, so an escape cannot be faked */
	escaped("a\\nb", "a\\\\nb");
	/* no control byte survives, whatever the input */
	{
		char in[256], out[NP_ESCAPED_SIZE(255)];

		for (int i = 1; i < 256; i++)
			in[i - 1] = (char)i;
		in[255] = '\0';
		np_escape(out, sizeof(out), in);
		for (const unsigned char *p = (const unsigned char *)out; *p; p++)
			assert_true(*p >= 0x20 && *p < 0x7f);
		/* 28 controls as \xHH, \t \n \r, 94 printable, \\,
		 * DEL and 128 high bytes as \xHH */
		assert_int_equal(strlen(out), 28 * 4 + 3 * 2 + 94 + 2 + 4 + 128 * 4);
	}
}

static void test_escape_cut(void **state)
{
	char out[8];

	(void)state;
	/* fits exactly: 7 characters and the NUL */
	assert_string_equal(np_escape(out, sizeof(out), "abcdefg"), "abcdefg");
	/* too long: cut, marked */
	assert_string_equal(np_escape(out, sizeof(out), "abcdefgh"), "abcd...");
	/* never half an escape: "\x1b" does not fit after "ab" with the marker */
	assert_string_equal(np_escape(out, sizeof(out), "ab\033cdefg"), "ab...");
	assert_string_equal(np_escape(out, sizeof(out), "a\nbcdefgh"), "a\\nb...");
	/* the last byte may use the room of the marker */
	assert_string_equal(np_escape(out, sizeof(out), "abcde\n"), "abcde\\n");
	assert_string_equal(np_escape(out, 1, "abc"), "");
	assert_string_equal(np_escape(out, sizeof(out), NULL), "");
}

static void test_host_names(void **state)
{
	const char *good[] = { "n1", "node001", "ib-node.cluster.example", "c1_2", "10.0.0.7", "EOF" };
	const char *bad[] = {
		"", "a b", "a,b", "n1:4", "$(id)", "a;b", "a\nb", "-n1", ".n1", "a'b", "a\"b",
		"n1/x", "a*", "\033[31m",
	};
	char longname[300];

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		assert_true(np_host_name_ok(good[i]));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_false(np_host_name_ok(bad[i]));
	assert_false(np_host_name_ok(NULL));
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	assert_false(np_host_name_ok(longname));
	longname[255] = '\0';
	assert_true(np_host_name_ok(longname));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape_controls),
		cmocka_unit_test(test_escape_cut),
		cmocka_unit_test(test_host_names),
	};

	return cmocka_run_group_tests_name("messages", tests, NULL, NULL);
}
