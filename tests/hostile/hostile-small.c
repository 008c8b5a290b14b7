#include "hostile.h"

void
hostile_register_small(void)
{
}
