/* Background load: one daemon actor per loaded host and entry, which
 * computes from START to END in competition with the rank.
 *
 * SimGrid shares a CPU among the executions on it in proportion to their
 * priorities, and a rank executes at priority 1. A competitor at priority
 * (1 - share) / share leaves the rank 1 / (1 + (1 - share) / share) = share
 * of the host's speed while both compute; while the rank waits, the
 * competitor has the CPU to itself, which costs the rank nothing. That is
 * the effect of a speed profile scaling the host by share, with no change
 * to the platform: SimGrid 3.32 sets speed profiles from C++ only
 * (ProfileBuilder::from_string, Host::set_speed_profile) or from the
 * platform file's speed_file, and lbsim is C and leaves the user's platform
 * as it is. */
#include "core/background.h"

#include <math.h>
#include <simgrid/actor.h>
#include <simgrid/host.h>

#include "lbsim/run.h"

/* More than a run computes: a load stops when it is killed at its end or
 * when the ranks are done, never by finishing. */
#define LOAD_FLOPS 1e300

static void
load_main(int argc, char *argv[])
{
  const LbBackground *load = sg_actor_self_get_data();

  if (load->start > 0)
    sg_actor_sleep_until(load->start);
  sg_actor_execute_with_priority(LOAD_FLOPS, (1 - load->share) / load->share);
}

gboolean
lb_background_check(const LbScenario *sc, GError **error)
{
  for (guint i = 0; sc->loads != NULL && i < sc->loads->len; i++) {
    const LbBackground *load = &g_array_index(sc->loads, LbBackground, i);
    sg_host_t host = sg_host_by_name(load->host);
    if (host == NULL) {
      g_set_error(error, LB_RUN_ERROR, LB_RUN_ERROR_INPUT,
                  "%s: [scenario] background: no host '%s' on platform %s", sc->file, load->host,
                  sc->platform);
      return FALSE;
    }
    if (sg_host_core_count(host) != 1) {
      g_set_error(error, LB_RUN_ERROR, LB_RUN_ERROR_INPUT,
                  "%s: [scenario] background: host %s has %d cores; a background load is a "
                  "share of a single-core host",
                  sc->file, load->host, sg_host_core_count(host));
      return FALSE;
    }
  }
  return TRUE;
}

void
lb_background_start(const LbScenario *sc)
{
  for (guint i = 0; sc->loads != NULL && i < sc->loads->len; i++) {
    LbBackground *load = &g_array_index(sc->loads, LbBackground, i);
    if (load->share >= 1)
      continue;
    char name[32];
    g_snprintf(name, sizeof name, "background-%u", i);
    sg_actor_t actor = sg_actor_init(name, sg_host_by_name(load->host));
    sg_actor_set_data(actor, load);
    sg_actor_start(actor, load_main, 0, NULL);
    /* the run ends when the ranks do, whatever the loads are doing */
    sg_actor_daemonize(actor);
    if (isfinite(load->end))
      sg_actor_set_kill_time(actor, load->end);
  }
}
