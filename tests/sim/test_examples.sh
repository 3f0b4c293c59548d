#!/bin/bash
# ibsim's own example fabrics (copied to tests/fabrics/ibsim-examples/).  They list a switch
# first, so the SM and every tool attach to the CA "Hca1" (SIM_HOST) instead.
. "$(dirname "$0")/lib.sh"
sim_init
export SIM_HOST=Hca1
for net in "$FABRICS"/ibsim-examples/net*; do
	fabric_test "$net"
done
t_step "pass"
