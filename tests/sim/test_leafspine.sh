#!/bin/bash
# leaf-spine demo fabric (4 spines, 8 leaves, 8 hosts each): bring-up, daemon, LIDs, SMInfo
. "$(dirname "$0")/lib.sh"
sim_init
fabric_test "$FABRICS/leafspine-4s8l8h.net"
t_step "pass"
