/*
 * tap.h - Test Anything Protocol output for C tests.
 *
 *	ok(x == 1, "x is one");
 *	is_int(got, want, "sum");
 *	is_str(got, want, "name");
 *	diag("a note");
 *	return done_testing();		(prints the plan, 1..N, last)
 *
 * Failures print file:line and got/want as TAP diagnostics.  A test that
 * cannot run prints "1..0 # SKIP reason" and exits 0.
 */
#ifndef REFD_TAP_H
#define REFD_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_n_, tap_fail_;

/* A test need not use every helper. */
#define TAP_UNUSED_ __attribute__((unused))

static void TAP_UNUSED_
tap_vres_(int pass, const char *file, int line, const char *fmt, va_list ap)
{
	tap_n_++;
	if (!pass)
		tap_fail_++;
	printf("%sok %d - ", pass ? "" : "not ", tap_n_);
	vprintf(fmt, ap);
	printf("\n");
	if (!pass)
		printf("#   Failed at %s:%d\n", file, line);
	fflush(stdout);
}

static int TAP_UNUSED_
tap_ok_(int pass, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vres_(pass, file, line, fmt, ap);
	va_end(ap);
	return pass;
}

static int TAP_UNUSED_
tap_is_int_(long long got, long long want, const char *file, int line,
    const char *fmt, ...)
{
	va_list ap;
	int pass = got == want;

	va_start(ap, fmt);
	tap_vres_(pass, file, line, fmt, ap);
	va_end(ap);
	if (!pass)
		printf("#          got: %lld\n#     expected: %lld\n", got, want);
	return pass;
}

static int TAP_UNUSED_
tap_is_str_(const char *got, const char *want, const char *file, int line,
    const char *fmt, ...)
{
	va_list ap;
	int pass = (got == NULL && want == NULL) ||
	    (got != NULL && want != NULL && strcmp(got, want) == 0);

	va_start(ap, fmt);
	tap_vres_(pass, file, line, fmt, ap);
	va_end(ap);
	if (!pass)
		printf("#          got: '%s'\n#     expected: '%s'\n",
		    got ? got : "(null)", want ? want : "(null)");
	return pass;
}

static void TAP_UNUSED_
diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static int TAP_UNUSED_
done_testing(void)
{
	printf("1..%d\n", tap_n_);
	return tap_fail_ != 0;
}

#define ok(c, ...) tap_ok_(!!(c), __FILE__, __LINE__, __VA_ARGS__)
#define is_int(g, w, ...)                                                      \
	tap_is_int_((long long)(g), (long long)(w), __FILE__, __LINE__,        \
	    __VA_ARGS__)
#define is_str(g, w, ...) tap_is_str_((g), (w), __FILE__, __LINE__, __VA_ARGS__)

#endif
