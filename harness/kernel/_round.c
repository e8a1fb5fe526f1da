/* A whole round played by four bots on the compact form (issue 52): see _round.h. */
#include <stdint.h>
