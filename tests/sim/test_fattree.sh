#!/bin/bash
# 3-level fat tree k=8 (128 hosts, 80 switches): bring-up, daemon, LIDs, SMInfo
. "$(dirname "$0")/lib.sh"
sim_init
fabric_test "$FABRICS/fattree-k8.net"
t_step "pass"
