/* What the fuzz targets share: a private folder for the files a scenario
 * names, and loading a scenario written there. */
#pragma once

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

/* Writes size bytes to NAME in the process's folder. */
void lb_fuzz_write(const char *name, const uint8_t *data, size_t size);

/* Writes text to scenario.ini in the folder and loads it: TRUE when it
 * loaded, FALSE with an error set when it did not. Aborts when a failure
 * comes without an error or an error with a success, both bugs. */
gboolean lb_fuzz_load(const uint8_t *data, size_t size);
