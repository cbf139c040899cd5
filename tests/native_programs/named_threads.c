/* A process with known threads, for the thread list and CPU-time readers.
   named_threads        starts "ss-spinner" (burns about 200 ms of its own CPU time, then waits)
                        and "ss-sleeper-1", "ss-sleeper-2" (wait), then prints
                        "ready <spinner tid> <spinner CPU ns as the thread's own clock says>"
                        and exits when its standard input closes.
   named_threads churn  starts and ends short-lived threads ("ss-churn") without pause, prints
                        "ready", and exits when its standard input closes. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int spinner_done = 0;
static int stopping = 0;
static pid_t spinner_tid = 0;
static long long spinner_cpu_ns = 0;

static long long threadCpuNs(void) {
  struct timespec now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
}

static void waitUntilStopping(void) {
  pthread_mutex_lock(&lock);
  while (!stopping) pthread_cond_wait(&changed, &lock);
  pthread_mutex_unlock(&lock);
}

static void* spin(void* unused) {
  (void)unused;
  volatile unsigned long sink = 0;
  long long start = threadCpuNs();
  while (threadCpuNs() - start < 200000000LL)
    for (int i = 0; i < 10000; i++) sink += (unsigned long)i;
  pthread_mutex_lock(&lock);
  spinner_tid = (pid_t)syscall(SYS_gettid);
  spinner_cpu_ns = threadCpuNs();
  spinner_done = 1;
  pthread_cond_broadcast(&changed);
  pthread_mutex_unlock(&lock);
  waitUntilStopping();
  return NULL;
}

static void* sleep_until_stopping(void* unused) {
  (void)unused;
  waitUntilStopping();
  return NULL;
}

static void* name_itself_and_end(void* unused) {
  (void)unused;
  pthread_setname_np(pthread_self(), "ss-churn");
  return NULL;
}

static void* churn(void* unused) {
  (void)unused;
  while (1) {
    pthread_mutex_lock(&lock);
    int stop = stopping;
    pthread_mutex_unlock(&lock);
    if (stop) return NULL;
    pthread_t brief;
    if (pthread_create(&brief, NULL, name_itself_and_end, NULL) == 0) pthread_join(brief, NULL);
  }
}

static pthread_t start(void* (*body)(void*), const char* name) {
  pthread_t thread;
  if (pthread_create(&thread, NULL, body, NULL) != 0) {
    fprintf(stderr, "named_threads: pthread_create failed\n");
    exit(2);
  }
  pthread_setname_np(thread, name);
  return thread;
}

static void waitForInputToClose(void) {
  char buffer[64];
  while (read(0, buffer, sizeof buffer) > 0) {
  }
}

int main(int argc, char** argv) {
  pthread_t threads[3];
  int count = 0;
  if (argc > 1 && strcmp(argv[1], "churn") == 0) {
    threads[count++] = start(churn, "ss-churner");
    printf("ready\n");
  } else {
    threads[count++] = start(spin, "ss-spinner");
    threads[count++] = start(sleep_until_stopping, "ss-sleeper-1");
    threads[count++] = start(sleep_until_stopping, "ss-sleeper-2");
    pthread_mutex_lock(&lock);
    while (!spinner_done) pthread_cond_wait(&changed, &lock);
    printf("ready %d %lld\n", (int)spinner_tid, spinner_cpu_ns);
    pthread_mutex_unlock(&lock);
  }
  fflush(stdout);
  waitForInputToClose();
  pthread_mutex_lock(&lock);
  stopping = 1;
  pthread_cond_broadcast(&changed);
  pthread_mutex_unlock(&lock);
  for (int i = 0; i < count; i++) pthread_join(threads[i], NULL);
  return 0;
}
