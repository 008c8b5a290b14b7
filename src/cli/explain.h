#pragma once

/* lbsim explain BALANCER [SCENARIO]: a small case narrated phase by phase. */
int lb_cli_explain(int argc, char **argv);
