/* A shared library the symbolizer tests dlopen only after their Symbolizer was made, so that
   its functions lie in no module the Symbolizer read at first. */
__attribute__((noinline)) int late_library_function(int x) {
  return x * 3 + 1;
}
