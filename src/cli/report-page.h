#pragma once

/* lbsim report JSON DIR: the page of lbsim run --report, from a run's JSON
 * (lbsim run -o) or a sweep's. */
int lb_cli_report(int argc, char **argv);
