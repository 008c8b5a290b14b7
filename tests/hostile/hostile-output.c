#include "hostile.h"

void
hostile_register_output(void)
{
}
