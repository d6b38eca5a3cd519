/*
 * printf.c writes printf.golden: what Lua 5.1's string.format answers on
 * x86-64 Linux for each case, computed the way Lua 5.1's str_format
 * (lstrlib.c) computes it: the argument cast as it casts it ((long) for
 * %d %i, (unsigned long) for %o %u %x %X, (int) for %c, double for
 * %e %E %f %g %G), then glibc's sprintf of the same spec with the "l"
 * length modifier added to the integer conversions. A u64 argument is
 * passed as the unsigned long it holds (for %d %i only below 2^63, where
 * C's answer and proflab's are the same number).
 *
 * The result's length is sprintf's count, so %c of 0 keeps its zero byte
 * (Lua 5.1 loses it; proflab keeps it, as Lua 5.2 does).
 *
 * format_test.go (TestFormatMatchesC) runs every case through proflab's
 * string.format. Regenerate with
 *
 *	go test ./core/luavm -run TestFormatMatchesC -update
 *
 * which builds this file with gcc -O0 (the casts must happen at run time,
 * as they do in Lua) and rewrites printf.golden.
 *
 * Each line: spec TAB argument TAB result. The argument is "n 3.5" (a Lua
 * number, %.17g), "u 0xffffffffffffffff" (a u64) or "s text" (a string);
 * spec, text and result escape '\' as \\, and bytes outside ' '...'~' as
 * \xHH.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const double numbers[] = {
	0.0, -0.0, 1, -1, 7, -7, 42, -42, 65, 255, 256, 321, -191,
	0.5, 1.5, 2.5, -2.5, 3.99, -3.99, 0.1, 1e-5, 0.000123456, 123456.789,
	999999.5, 9.9999995, 1e15, 1e20, 1e100, -1e100, 5e-324,
	2147483647.9, 2147483648.0, -2147483648.5, -2147483649.0, 4294967296.0,
	9007199254740992.0, 4611686018427387904.0, 9223372036854775808.0,
	-9223372036854775808.0, -9223372036854779904.0, 18446744073709549568.0,
	18446744073709551616.0, 1e300, -1e300,
};

static const uint64_t u64s[] = {
	0, 1, 65, 255, 0x100, 0x7fffffffffffffffULL, 0x8000000000000000ULL,
	0xfffff80000001000ULL, 0xffffffffffffffffULL, 1234567890123456789ULL,
};

static const char *strings[] = {
	"", "a", "abc", "hello", "profile source", "tab\there", "\xe9t\xe9",
};

static const char specials[] = "-+ #0";

/* A fixed generator, so that the golden never changes by accident. */
static uint64_t state = 0x9e3779b97f4a7c15ULL;
static uint64_t next(void) {
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}
static int below(int n) { return (int)(next() % (uint64_t)n); }

static void escape(const char *s, int n) {
	for (int i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\\')
			fputs("\\\\", stdout);
		else if (c >= ' ' && c <= '~')
			putchar(c);
		else
			printf("\\x%02x", c);
	}
}

/* emit formats one case; arg is 'n' (x), 'u' (u) or 's' (s). */
static void emit(const char *spec, char arg, double x, uint64_t u, const char *s) {
	char form[32], buff[1024];
	size_t l = strlen(spec);
	char conv = spec[l - 1];
	int n;
	if (strchr("diouxX", conv)) { /* addintlen: "%5d" → "%5ld" */
		memcpy(form, spec, l - 1);
		form[l - 1] = 'l';
		form[l] = conv;
		form[l + 1] = 0;
	} else {
		strcpy(form, spec);
	}
	switch (conv) {
	case 'd': case 'i':
		n = snprintf(buff, sizeof buff, form, arg == 'u' ? (long)u : (long)x);
		break;
	case 'o': case 'u': case 'x': case 'X':
		n = snprintf(buff, sizeof buff, form, arg == 'u' ? (unsigned long)u : (unsigned long)x);
		break;
	case 'c':
		n = snprintf(buff, sizeof buff, form, arg == 'u' ? (int)u : (int)x);
		break;
	case 's':
		n = snprintf(buff, sizeof buff, form, s);
		break;
	default:
		n = snprintf(buff, sizeof buff, form, x);
	}
	escape(spec, (int)strlen(spec));
	putchar('\t');
	if (arg == 'n')
		printf("n %.17g", x);
	else if (arg == 'u')
		printf("u 0x%llx", (unsigned long long)u);
	else {
		fputs("s ", stdout);
		escape(s, (int)strlen(s));
	}
	putchar('\t');
	escape(buff, n);
	putchar('\n');
}

/* randomSpec writes a random spec of Lua 5.1's grammar: at most five
 * flags, a width and a precision of at most two digits. */
static void randomSpec(char *spec, char conv) {
	char *p = spec;
	*p++ = '%';
	int flags = below(10) < 5 ? 0 : 1 + below(below(4) == 0 ? 5 : 2);
	for (int i = 0; i < flags; i++)
		*p++ = specials[below(5)];
	int w = below(10);
	if (w >= 4)
		p += sprintf(p, "%d", w < 9 ? 1 + below(25) : 1 + below(99));
	int q = below(20);
	if (q == 0)
		*p++ = '.';
	else if (q >= 9)
		p += sprintf(p, ".%d", q < 19 ? below(21) : below(100));
	*p++ = conv;
	*p = 0;
}

/* randomNumber is a value of a random magnitude, or one of the table's. */
static double randomNumber(void) {
	if (below(2) == 0)
		return numbers[below(sizeof numbers / sizeof numbers[0])];
	double m = (double)(next() >> 11) / 9007199254740992.0; /* [0, 1) */
	double x = m * pow(10, below(40) - 12);
	if (below(3) == 0)
		x = floor(x);
	return below(4) == 0 ? -x : x;
}

int main(void) {
	const char *numconv = "diouxXceEfgG";
	const char *intconv = "diouxXc";
	const int nn = sizeof numbers / sizeof numbers[0];
	const int nu = sizeof u64s / sizeof u64s[0];
	const int ns = sizeof strings / sizeof strings[0];
	char spec[32];
	const double special[] = {INFINITY, -INFINITY, NAN, -NAN};

	/* every conversion of every table value, plain */
	for (const char *c = numconv; *c; c++) {
		sprintf(spec, "%%%c", *c);
		for (int i = 0; i < nn; i++)
			emit(spec, 'n', numbers[i], 0, 0);
		for (int i = 0; i < 4; i++)
			emit(spec, 'n', special[i], 0, 0);
	}
	for (const char *c = intconv; *c; c++) {
		sprintf(spec, "%%%c", *c);
		for (int i = 0; i < nu; i++)
			if (!(strchr("di", *c) && u64s[i] >= 0x8000000000000000ULL))
				emit(spec, 'u', 0, u64s[i], 0);
	}
	for (int i = 0; i < ns; i++)
		emit("%s", 's', 0, 0, strings[i]);

	/* the values that are not finite, with flags and width */
	const char *nonfinite[] = {"%5f", "%-6e", "%+g", "% E", "%010.3f", "%#G", "%-+8.1e"};
	for (int i = 0; i < (int)(sizeof nonfinite / sizeof nonfinite[0]); i++)
		for (int j = 0; j < 4; j++)
			emit(nonfinite[i], 'n', special[j], 0, 0);

	/* random specs over every conversion and kind of argument */
	for (int k = 0; k < 1800; k++) {
		char conv = "diouxXceEfgGs"[below(13)];
		randomSpec(spec, conv);
		if (conv == 's') {
			emit(spec, 's', 0, 0, strings[below(ns)]);
		} else if (strchr(intconv, conv) && below(5) == 0) {
			uint64_t u = below(2) ? u64s[below(nu)] : next() >> below(64);
			if (strchr("di", conv) && u >= 0x8000000000000000ULL)
				u >>= 1;
			emit(spec, 'u', 0, u, 0);
		} else {
			emit(spec, 'n', below(30) ? randomNumber() : special[below(4)], 0, 0);
		}
	}
	return 0;
}
