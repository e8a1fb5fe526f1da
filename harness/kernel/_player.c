/* The player of whole rounds with the heuristic bots (issue 52). */
#include <stdint.h>
