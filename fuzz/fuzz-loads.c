/* libFuzzer target: the loads file of the array1d model (pattern file),
 * read through a fixed scenario that names it. */
#include <string.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char scenario[] = "[scenario]\nplatform = hypercube-4.xml\nranks = 4\n"
                               "[workload]\nmodel = array1d\npattern = file\nfile = loads.txt\n"
                               "[balancers]\nrun = none\n";

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  lb_fuzz_write("loads.txt", data, size);
  lb_fuzz_load((const uint8_t *)scenario, strlen(scenario));
  return 0;
}
