/* The heuristic bot (啟發式) on the compact form (issue 52): see _round.h. */
#include <stdint.h>
