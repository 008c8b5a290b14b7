#include "hostile.h"

void
hostile_register_memory(void)
{
}
