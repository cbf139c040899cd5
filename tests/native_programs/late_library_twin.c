/* late_library.c's twin: the same code under another name, at the same place in its file, so
   that a symbolizer reading the wrong file of the two would give a wrong name, not none. */
__attribute__((noinline)) int late_library_twin_function(int x) {
  return x * 3 + 1;
}
