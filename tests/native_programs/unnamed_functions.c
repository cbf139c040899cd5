/* A library the symbolizer tests load stripped (strip --strip-all: only .dynsym is left, as in
   Debian's libz and libc), with its separate debug file kept aside: two internal functions no
   exported symbol names, and an exported one that calls them. */
static volatile int sink;

__attribute__((noinline)) static int unnamed_first(int x) {
  for (int i = 0; i < x; i++) sink += i * x;
  return sink;
}

__attribute__((noinline)) static int unnamed_second(int x) {
  for (int i = 0; i < x; i++) sink ^= i + x;
  return sink + 1;
}

int unnamed_functions_entry(int x) {
  return unnamed_first(x) + unnamed_second(x);
}

/* Where the internal functions are, for the tests to ask about. */
void* unnamed_functions_first(void) { return (void*)&unnamed_first; }
void* unnamed_functions_second(void) { return (void*)&unnamed_second; }
