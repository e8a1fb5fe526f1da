/* The listing of a hand's plays in the reference interpreter's order (issue 52). */
#include <stdint.h>
