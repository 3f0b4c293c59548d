#!/bin/bash
# random connected graph of 40 switches (degree 4, 2 hosts each, seeded)
. "$(dirname "$0")/lib.sh"
sim_init
fabric_test "$FABRICS/random-40.net" --allow-credit-loops
t_step "pass"
