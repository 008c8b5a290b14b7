/* --scheduler parallel: the plain list of commands, each line ending with
 * its run's point as a comment, so that GNU parallel's joblog names every
 * run. */
#include "sweep/emit.h"

static gboolean
check_options(const LbEmit *e, const LbSweep *sw, LbFileSet *set, GError **error)
{
  return lb_emit_plain.check(e, sw, set, error);
}

static gboolean
write_files(const LbEmit *e, const LbSweep *sw, const LbEmitJobs *jobs, GError **error)
{
  return lb_emit_lines(e, sw, jobs, TRUE, error);
}

static void
say(const LbEmit *e, const LbEmitJobs *jobs)
{
  lb_emit_say_lines(e, jobs, " (parallel --joblog FILE < jobs)");
}

const LbEmitter lb_emit_parallel = {"parallel", check_options, write_files, say};
