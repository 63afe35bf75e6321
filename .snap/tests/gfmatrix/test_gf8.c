/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_gf8.c  The GF(2^8) field, exhaustively: axioms, and every multiply against ISA-L. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <isa-l/erasure_code.h>

#include "gf8.h"

static void test_mul_matches_isal(void **state)
{
	(void)state;
	for (int a = 0; a < 256; a++)
		for (int b = 0; b < 256; b++) {
			uint8_t want = gf_mul((uint8_t)a, (uint8_t)b);

			assert_int_equal(gfec_gf8_mul((uint8_t)a, (uint8_t)b), want);
			assert_int_equal(gfec_gf8_mul_log((uint8_t)a, (uint8_t)b), want);
		}
}

static void test_zero_operand(void **state)
{
	(void)state;
	/* Seed 003's log/exp multiply returned exp[...] for a zero operand. */
	for (int a = 0; a < 256; a++) {
		assert_int_equal(gfec_gf8_mul_log(0, (uint8_t)a), 0);
		assert_int_equal(gfec_gf8_mul_log((uint8_t)a, 0), 0);
		assert_int_equal(gfec_gf8_mul(0, (uint8_t)a), 0);
		assert_int_equal(gfec_gf8_div(0, (uint8_t)(a | 1)), 0);
	}
	assert_int_equal(gfec_gf8_inv(0), 0);
}

static void test_exp_table_extended(void **state)
{
	(void)state;
	for (int i = 0; i < 510; i++)
		assert_int_equal(gfec_gf8_tab.exp[i], gfec_gf8_tab.exp[i % 255]);
	for (int a = 1; a < 256; a++)
		assert_int_equal(gfec_gf8_tab.exp[gfec_gf8_tab.log[a]], a);
	/* 2 generates the multiplicative group: all 255 powers are distinct. */
	uint8_t seen[256] = { 0 };

	for (int i = 0; i < 255; i++) {
		assert_int_equal(seen[gfec_gf8_tab.exp[i]], 0);
		seen[gfec_gf8_tab.exp[i]] = 1;
	}
	assert_int_equal(seen[0], 0);
}

static void test_axioms(void **state)
{
	(void)state;
	for (int a = 0; a < 256; a++) {
		assert_int_equal(gfec_gf8_mul((uint8_t)a, 1), a);
		assert_int_equal(gfec_gf8_add((uint8_t)a, (uint8_t)a), 0);
		if (a) {
			assert_int_equal(gfec_gf8_mul((uint8_t)a, gfec_gf8_inv((uint8_t)a)), 1);
			assert_int_equal(gfec_gf8_inv((uint8_t)a), gf_inv((uint8_t)a));
		}
		for (int b = 0; b < 256; b++) {
			uint8_t ab = gfec_gf8_mul((uint8_t)a, (uint8_t)b);

			assert_int_equal(ab, gfec_gf8_mul((uint8_t)b, (uint8_t)a));
			if (b)
				assert_int_equal(gfec_gf8_div(ab, (uint8_t)b), a);
			for (int c = 0; c < 256; c++) {
				uint8_t bc = gfec_gf8_mul((uint8_t)b, (uint8_t)c);

				if (gfec_gf8_mul(ab, (uint8_t)c) != gfec_gf8_mul((uint8_t)a, bc))
					fail_msg("associativity fails at %d %d %d", a, b, c);
				if (gfec_gf8_mul((uint8_t)a, (uint8_t)(b ^ c)) !=
				    (uint8_t)(ab ^ gfec_gf8_mul((uint8_t)a, (uint8_t)c)))
					fail_msg("distributivity fails at %d %d %d", a, b, c);
			}
		}
	}
}

static void test_pow(void **state)
{
	(void)state;
	for (int a = 0; a < 256; a++) {
		uint8_t p = 1;

		for (unsigned n = 0; n < 600; n++) {
			assert_int_equal(gfec_gf8_pow((uint8_t)a, n), p);
			p = gfec_gf8_mul(p, (uint8_t)a);
		}
	}
}

static void test_swar(void **state)
{
	(void)state;
	for (int c = 0; c < 256; c++)
		for (int a = 0; a < 256; a += 8) {
			uint64_t w = 0, r;

			for (int i = 0; i < 8; i++)
				w |= (uint64_t)(a + i) << (8 * i);
			r = gfec_gf8_mul_swar(w, (uint8_t)c);
			for (int i = 0; i < 8; i++)
				assert_int_equal((uint8_t)(r >> (8 * i)),
						 gfec_gf8_mul((uint8_t)(a + i), (uint8_t)c));
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mul_matches_isal),  cmocka_unit_test(test_zero_operand),
		cmocka_unit_test(test_exp_table_extended), cmocka_unit_test(test_axioms),
		cmocka_unit_test(test_pow),		  cmocka_unit_test(test_swar),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
