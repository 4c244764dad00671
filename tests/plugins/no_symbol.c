/* Refused: a shared library that exports nothing of ours. */
int cct_test_unrelated_function(int x) { return x + 1; }
