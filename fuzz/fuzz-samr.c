/* libFuzzer target: the SAMR hierarchy file (hierarchy = FILE), read
 * through a fixed scenario that names it. The first byte picks the root:
 * even a 2-d 16x16 domain, odd a 3-d 8x8x8 one; the rest is the file. */
#include <string.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char scenario_2d[] = "[scenario]\nplatform = hypercube-4.xml\nranks = 4\n"
                                  "[workload]\nmodel = samr\nsize = 16x16\nlevels = 2\n"
                                  "hierarchy = grids.txt\n"
                                  "[balancers]\nrun = none\n";
static const char scenario_3d[] = "[scenario]\nplatform = hypercube-4.xml\nranks = 4\n"
                                  "[workload]\nmodel = samr\nsize = 8x8x8\nlevels = 2\n"
                                  "hierarchy = grids.txt\n"
                                  "[balancers]\nrun = none\n";

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size == 0)
    return 0;
  const char *scenario = data[0] % 2 == 0 ? scenario_2d : scenario_3d;
  lb_fuzz_write("grids.txt", data + 1, size - 1);
  lb_fuzz_load((const uint8_t *)scenario, strlen(scenario));
  return 0;
}
