#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noinline)) unsigned long spin(unsigned long n, unsigned long seed) {
	unsigned long x = seed;
	for (unsigned long i = 0; i < n; i++) {
		x = x * 6364136223846793005UL + seed;
		x ^= x >> 17;
	}
	return x;
}

__attribute__((noinline)) unsigned long light(unsigned long n) { return spin(n, 3); }
__attribute__((noinline)) unsigned long medium(unsigned long n) {
	unsigned long x = 5;
	for (unsigned long i = 0; i < n; i++) { x += i * x; x ^= x >> 7; }
	return x;
}
__attribute__((noinline)) unsigned long heavy(unsigned long n) { return spin(n, 7) + medium(n / 4); }
__attribute__((noinline)) unsigned long callerA(unsigned long n) { return heavy(n); }
__attribute__((noinline)) unsigned long callerB(unsigned long n) { return heavy(n); }

int main(int argc, char **argv) {
	unsigned long rounds = argc > 1 ? strtoul(argv[1], 0, 10) : 200;
	for (unsigned long r = 0; r < rounds; r++) {
		sink += light(1000 + (r & 1));
		sink += medium(2000 + (r & 1));
		sink += callerA(3000 + (r & 1));
		sink += callerB(1000 + (r & 1));
	}
	printf("%lu\n", sink);
	return 0;
}
