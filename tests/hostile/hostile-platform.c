#include "hostile.h"

void
hostile_register_platform(void)
{
}
