#include "hostile.h"

void
hostile_register_signals(void)
{
}
