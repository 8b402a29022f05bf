// tests/run/static_program.cpp: linked with -static, for the test that
// `forkscale-report run` refuses a program no library can be preloaded into.
int main() { return 0; }
