/* libFuzzer target: a whole scenario file, [expect] lines included. Paths
 * in it resolve against the fuzzer's private folder, platforms also
 * against the shipped ones. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  lb_fuzz_load(data, size);
  return 0;
}
