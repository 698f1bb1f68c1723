/* symvtune: placeholder entry point, replaced by the command table. */
#include <stdio.h>
int main(void) { puts("symvtune"); return 0; }
