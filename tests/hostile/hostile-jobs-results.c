#include "hostile.h"

void
hostile_register_jobs_and_results(void)
{
}
