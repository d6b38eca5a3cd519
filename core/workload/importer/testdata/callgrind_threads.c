#include <pthread.h>
#include <stdio.h>
static volatile unsigned long sink;
__attribute__((noinline)) unsigned long work(unsigned long n) {
	unsigned long x = n;
	for (unsigned long i = 0; i < n; i++) x = x * 2862933555777941757UL + 3037000493UL;
	return x;
}
static void *worker(void *arg) { sink += work((unsigned long)arg); return 0; }
int main(void) {
	pthread_t t;
	pthread_create(&t, 0, worker, (void *)300000UL);
	sink += work(100000);
	pthread_join(t, 0);
	printf("%lu\n", sink);
	return 0;
}
