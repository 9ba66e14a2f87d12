/* SPDX-License-Identifier: BSD-3-Clause */
/* test_cpuset.c - the cpulist bitmap */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <numaplan.h>

static void roundtrip(const char *in, const char *want)
{
	np_cpuset_t *s = np_cpuset_new();
	char *out;

	assert_int_equal(np_cpuset_parse(s, in), 0);
	out = np_cpuset_format(s);
	assert_string_equal(out, want);
	free(out);
	np_cpuset_free(s);
}

static void test_parse_format(void **state)
{
	(void)state;
	roundtrip("0-3,8", "0-3,8");
	roundtrip("3,2,1,0", "0-3");
	roundtrip("", "");
	roundtrip("5", "5");
	roundtrip("0,2,4,6", "0,2,4,6");
	roundtrip("63-65,127-128", "63-65,127-128");
	roundtrip("24-27,88-91\n", "24-27,88-91");
	/* decimal whatever the leading zeros (hwloc's own parser reads octal) */
	roundtrip("010,011", "10-11");
	roundtrip(" 1-2 \n", "1-2");
	roundtrip("1048575", "1048575");
}

static void test_parse_rejects(void **state)
{
	/* hwloc_bitmap_list_sscanf() takes most of these: "1-" as every CPU
	 * from 1 on, "3-1" as nothing, "0x3" as 3 */
	const char *bad[] = { "a", "1-", "-1", "3-1", "1,,2", "1 2", "1,", "0x3", "99999999999",
	                      "1048576", "0-1048576", ",1", "0-3\nx", "1;2" };
	np_cpuset_t *s = np_cpuset_new();

	(void)state;
	np_cpuset_parse(s, "7");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_not_equal(np_cpuset_parse(s, bad[i]), 0);
		/* a failed parse leaves the set unchanged */
		assert_true(np_cpuset_isset(s, 7));
		assert_int_equal(np_cpuset_count(s), 1);
	}
	np_cpuset_free(s);
}

static void test_hex(void **state)
{
	np_cpuset_t *s = np_cpuset_new();
	char *h;

	(void)state;
	h = np_cpuset_format_hex(s);
	assert_string_equal(h, "0x0");
	free(h);
	np_cpuset_parse(s, "0,1");
	h = np_cpuset_format_hex(s);
	assert_string_equal(h, "0x3");
	free(h);
	np_cpuset_parse(s, "4-7,64");
	h = np_cpuset_format_hex(s);
	/* bit 64 is the 17th hex digit from the right */
	assert_string_equal(h, "0x100000000000000f0");
	free(h);
	{
		char buf[8];

		/* the list in a caller's buffer, cut with "..." */
		assert_string_equal(np_cpuset_text(buf, sizeof(buf), s), "4-7,64");
		np_cpuset_parse(s, "0,2,4,6,8,10");
		assert_string_equal(np_cpuset_text(buf, sizeof(buf), s), "0,2,...");
		np_cpuset_zero(s);
		assert_string_equal(np_cpuset_text(buf, sizeof(buf), s), "");
	}
	np_cpuset_free(s);
}

static void test_ops(void **state)
{
	np_cpuset_t *a = np_cpuset_new(), *b = np_cpuset_new();

	(void)state;
	np_cpuset_parse(a, "0-7");
	np_cpuset_parse(b, "4-11");
	assert_true(np_cpuset_intersects(a, b));
	assert_false(np_cpuset_included(a, b));
	np_cpuset_and(a, b);
	assert_int_equal(np_cpuset_count(a), 4);
	assert_int_equal(np_cpuset_first(a), 4);
	assert_int_equal(np_cpuset_last(a), 7);
	assert_true(np_cpuset_included(a, b));
	np_cpuset_andnot(b, a);
	assert_int_equal(np_cpuset_first(b), 8);
	assert_int_equal(np_cpuset_next(b, 8), 9);
	assert_int_equal(np_cpuset_next(b, 11), -1);
	np_cpuset_zero(b);
	assert_true(np_cpuset_iszero(b));
	assert_int_equal(np_cpuset_first(b), -1);
	assert_int_equal(np_cpuset_set(b, 200), 0);
	assert_true(np_cpuset_isset(b, 200));
	/* an index past the bound of every set is refused, not allocated */
	assert_int_equal(np_cpuset_set(b, 1u << 20), -ERANGE);
	assert_false(np_cpuset_isset(b, 1u << 20));
	assert_int_equal(np_cpuset_last(b), 200);
	assert_false(np_cpuset_equal(a, b));
	np_cpuset_copy(a, b);
	assert_true(np_cpuset_equal(a, b));
	np_cpuset_free(a);
	np_cpuset_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_format),
		cmocka_unit_test(test_parse_rejects),
		cmocka_unit_test(test_hex),
		cmocka_unit_test(test_ops),
	};

	return cmocka_run_group_tests_name("cpuset", tests, NULL, NULL);
}
